// ascendcraft AscendC CPU simulator: the bodies of cross.h's functions, compiled once per
// library version and linked into every kernel (build.py), so a kernel's build compiles only itself.
#include "kernel_operator.h"

namespace asc_sim {

CrossCores g_cross;
CrossCores::CrossCores() = default;
CrossCores::~CrossCores() = default;

std::string core_label(int t) {
    const CrossCores& x = g_cross;
    if (t < 0 || t >= static_cast<int>(x.cores.size())) return fmt("core %d", t);
    const CoreSlot& c = x.cores[static_cast<size_t>(t)];
    if (x.ratio == 0) return fmt("block %lld", static_cast<long long>(c.block));
    if (c.kind == 1) return fmt("the AIC of block %lld", static_cast<long long>(c.group));
    return fmt("AIV %lld (block %lld, sub-block %lld)", static_cast<long long>(c.block),
               static_cast<long long>(c.group), static_cast<long long>(c.sub));
}

void cross_setup(int64_t groups, int ratio, bool clocks, bool aic_threads) {
    CrossCores& x = g_cross;
    x.active = true;
    x.clocks = clocks;
    x.ratio = ratio;
    x.aic_threads = aic_threads;
    const int64_t aic = ratio > 0 && aic_threads ? 1 : 0;   // thread role 0 is the block's AIC
    const int64_t per = ratio > 0 ? ratio + aic : 1;
    x.cores.assign(static_cast<size_t>(groups * per), CoreSlot{});
    g_block_l2.clear();
    for (int64_t g = 0; aic && g < groups; ++g) g_block_l2.push_back(std::make_unique<BlockL2>());
    for (int64_t t = 0; t < groups * per; ++t) {
        CoreSlot& c = x.cores[static_cast<size_t>(t)];
        c.group = t / per;
        const int64_t role = t % per;
        c.kind = aic && role == 0 ? 1 : 0;
        c.sub = ratio > 0 && role >= aic ? role - aic : 0;
        c.block = ratio == 0 ? t : c.kind == 1 ? c.group : c.group * ratio + c.sub;
        if (clocks) {
            c.clock.assign(static_cast<size_t>(groups * per), 0);
            c.clock[static_cast<size_t>(t)] = 1;
            c.snapshots.push_back(std::make_shared<const std::vector<uint32_t>>(c.clock));
        }
    }
}

void cross_enter_core(State& s, int t) {
    const CoreSlot& c = g_cross.cores[static_cast<size_t>(t)];
    s.thread = t;
    s.core_kind = c.kind;
    s.sub_block = c.sub;
    s.group = c.group;
    s.block_idx = c.block;
}

Clock cross_release(CoreSlot& c, int t) {
    Clock made = c.snapshots.back();
    c.clock[static_cast<size_t>(t)]++;
    c.snapshots.push_back(std::make_shared<const std::vector<uint32_t>>(c.clock));
    return made;
}

Clock join_clocks(const Clock& a, const Clock& b) {
    if (!a) return b;
    if (!b) return a;
    auto j = std::make_shared<std::vector<uint32_t>>(*a);
    for (size_t i = 0; i < j->size(); ++i) (*j)[i] = std::max((*j)[i], (*b)[i]);
    return j;
}

void cross_acquire(CoreSlot& c, const Clock& k) {
    if (!k) return;
    bool grew = false;
    for (size_t i = 0; i < c.clock.size(); ++i)
        if ((*k)[i] > c.clock[i]) {
            c.clock[i] = (*k)[i];
            grew = true;
        }
    if (grew) c.snapshots.push_back(std::make_shared<const std::vector<uint32_t>>(c.clock));
}

bool happens_before(int a, uint32_t pa, int b, uint32_t pb) {
    const CrossCores& x = g_cross;
    if (a == b) return pa <= pb;
    const auto& sa = *x.cores[static_cast<size_t>(a)].snapshots[pa];
    const auto& sb = *x.cores[static_cast<size_t>(b)].snapshots[pb];
    return sb[static_cast<size_t>(a)] >= sa[static_cast<size_t>(a)];
}

std::string cross_state(int t) {
    const CoreSlot& c = g_cross.cores[static_cast<size_t>(t)];
    const std::string who = core_label(t);
    if (c.status == CoreSlot::DONE)
        return fmt("%s has returned (its last API call: %s at line %d)", who.c_str(), c.api, c.loc.line);
    if (c.status == CoreSlot::WAITING) {
        if (c.waits_on >= XFLAGS)
            return fmt("%s waits in SyncAll at line %d", who.c_str(), c.loc.line);
        return fmt("%s waits in CrossCoreWaitFlag(%d) at line %d", who.c_str(), c.waits_on, c.loc.line);
    }
    return fmt("%s is running", who.c_str());
}

std::string cross_others(int t, int id) {
    const CrossCores& x = g_cross;
    const CoreSlot& c = x.cores[static_cast<size_t>(t)];
    std::vector<int> near, far;
    for (size_t u = 0; u < x.cores.size(); ++u) {
        const CoreSlot& o = x.cores[u];
        if (static_cast<int>(u) == t) continue;
        if (x.ratio > 0 && o.group == c.group) near.push_back(static_cast<int>(u));
        else if (id >= XFLAGS || x.ratio == 0 || o.kind == c.kind) far.push_back(static_cast<int>(u));
    }
    near.insert(near.end(), far.begin(), far.end());
    std::string out;
    const size_t shown = std::min<size_t>(near.size(), 4);
    for (size_t i = 0; i < shown; ++i) out += (i ? "; " : "") + cross_state(near[i]);
    if (near.size() > shown) out += fmt("; and %zu more", near.size() - shown);
    return out;
}

void cross_check_deadlock() {   // g_cross.mu held
    CrossCores& x = g_cross;
    if (x.waiting > 0 && x.waiting + x.done == static_cast<int>(x.cores.size()) && !x.deadlock) {
        x.deadlock = true;
        x.cv.notify_all();
    }
}

void cross_finish(int t, bool failed) {
    CrossCores& x = g_cross;
    if (!x.active) return;
    std::lock_guard<std::mutex> lock(x.mu);
    CoreSlot& c = x.cores[static_cast<size_t>(t)];
    c.status = CoreSlot::DONE;
    c.api = S().cur_api;
    c.loc = S().cur_loc;
    x.done++;
    if (failed) {
        x.broken = true;
        x.cv.notify_all();
    } else {
        cross_check_deadlock();
    }
}

void cross_deliver(int u, int id, const Firing& d, const char* api, const Loc& loc) {
    CrossCores& x = g_cross;
    CoreSlot& c = x.cores[static_cast<size_t>(u)];
    if (id < XFLAGS && static_cast<int>(c.counter[id].size()) >= XCOUNTER_MAX)
        fail("cross-core-flag", api, loc,
             fmt("flag %d of %s would count past %d: it was set %d times and not waited for (each flag's counter "
                 "holds 0..%d, and the NPU stops with an error past it); wait for a flag before setting it again, "
                 "or use another flag id", id, core_label(u).c_str(), XCOUNTER_MAX, XCOUNTER_MAX, XCOUNTER_MAX));
    c.counter[id].push_back(d);
    if (c.status == CoreSlot::WAITING && c.waits_on == id) {
        c.status = CoreSlot::RUNNING;   // counted as running from now: no false deadlock meanwhile
        x.waiting--;
    }
    x.cv.notify_all();
}

void cross_arrive(const std::tuple<int, int64_t, int>& key, const std::vector<int>& members,
                  const std::vector<int>& targets, int t, int id, const Firing& a, const char* api,
                         const Loc& loc) {
    CrossCores& x = g_cross;
    Round& r = x.rounds[key];
    if (r.members.empty()) {
        r.members = members;
        r.pending.assign(members.size(), {});
    }
    auto me = std::find(r.members.begin(), r.members.end(), t);
    r.pending[static_cast<size_t>(me - r.members.begin())].push_back(a);
    for (const auto& p : r.pending)
        if (p.empty()) return;
    Firing d{0, nullptr};
    // the members' HBM bytes since the last round, shared by those that moved data (in a mixed launch
    // by those of each kind, as each transfer's share: hbm_sharers)
    auto kind_of = [&](size_t i) { return x.ratio > 0 && x.aic_threads ? x.cores[static_cast<size_t>(r.members[i])].kind : 0; };
    int64_t sharers[2] = {0, 0};
    for (size_t i = 0; i < r.pending.size(); ++i) sharers[kind_of(i)] += r.pending[i].front().hbm > 0;
    for (size_t i = 0; i < r.pending.size(); ++i) {
        auto& p = r.pending[i];
        d.time = std::max(d.time, p.front().time);
        if (p.front().hbm > 0)
            d.time = std::max(d.time, p.front().since + p.front().hbm / hbm_share_per_cycle(sharers[kind_of(i)]));
        d.clock = join_clocks(d.clock, p.front().clock);
        p.pop_front();
    }
    for (int u : targets) cross_deliver(u, id, d, api, loc);
}

std::vector<int> cross_members(bool (*pick)(const CoreSlot&, const CoreSlot&), int t) {
    const CrossCores& x = g_cross;
    std::vector<int> m;
    for (size_t u = 0; u < x.cores.size(); ++u)
        if (pick(x.cores[static_cast<size_t>(t)], x.cores[u])) m.push_back(static_cast<int>(u));
    return m;
}

double cross_take(int t, int id, const char* api, const Loc& loc) {
    CrossCores& x = g_cross;
    std::unique_lock<std::mutex> lock(x.mu);
    CoreSlot& c = x.cores[static_cast<size_t>(t)];
    if (c.counter[id].empty()) {
        c.status = CoreSlot::WAITING;
        c.waits_on = id;
        c.loc = loc;
        c.api = api;
        x.waiting++;
        cross_check_deadlock();
        x.cv.wait(lock, [&] { return !c.counter[id].empty() || x.broken || x.deadlock; });
        if (c.counter[id].empty()) {
            if (c.status == CoreSlot::WAITING) {
                c.status = CoreSlot::RUNNING;
                x.waiting--;
            }
            if (x.deadlock && !x.broken && x.deadlock_reports++ < 4) {
                const std::string what = id >= XFLAGS
                    ? std::string("SyncAll waits for every core of the barrier to arrive")
                    : fmt("CrossCoreWaitFlag(%d) waits for a flag no core will set", id);
                const std::string others = cross_others(t, id);
                lock.unlock();
                fail("cross-core-deadlock", api, loc,
                     fmt("deadlock: %s on %s, and no core can go on: %s. Every CrossCoreWaitFlag needs its "
                         "CrossCoreSetFlag on the cores the mode names (mode 2: the AIC of this block for an AIV, "
                         "both AIVs for the AIC; mode 1: both AIVs of the block; mode 0: every core of this kind), "
                         "and every core must reach each SyncAll",
                         what.c_str(), core_label(t).c_str(), others.c_str()));
            }
            lock.unlock();
            S().aborting = true;
            throw Abort{};
        }
    }
    Firing d = c.counter[id].front();
    c.counter[id].pop_front();
    if (x.clocks) {
        cross_acquire(c, d.clock);
        S().phase = static_cast<uint32_t>(c.snapshots.size() - 1);
    }
    return d.time;
}

void cross_set(int mode, int id, double time, const char* api, const Loc& loc) {
    CrossCores& x = g_cross;
    State& s = S();
    const int t = s.thread;
    if (mode != 0 && mode != 1 && mode != 2)
        fail("cross-core-flag", api, loc,
             fmt("CrossCoreSetFlag mode %d: Atlas A2 supports modes 0 (all cores of one kind), 1 (the AIVs of one "
                 "block) and 2 (the AIC and the AIVs of one block)", mode));
    if ((mode == 1 || mode == 2) && x.ratio == 0)
        fail("cross-core-flag", api, loc,
             fmt("CrossCoreSetFlag mode %d works within one block of a mixed launch (KERNEL_TYPE_MIX_AIC_1_1 or "
                 "KERNEL_TYPE_MIX_AIC_1_2); this launch runs one kind of core", mode));
    std::unique_lock<std::mutex> lock(x.mu);
    CoreSlot& c = x.cores[static_cast<size_t>(t)];
    if (mode == 1 && c.kind == 1)
        fail("cross-core-flag", api, loc, "CrossCoreSetFlag mode 1 synchronises the AIVs of a block; an AIC has none "
             "to synchronise with (use mode 2 to signal the AIVs)");
    id &= 15;   // the hardware keeps the low 4 bits
    if (c.mode_of[id] >= 0 && c.mode_of[id] != mode) {
        bool open = !c.counter[id].empty();
        for (auto& kv : x.rounds) {
            if (std::get<2>(kv.first) != id || std::get<0>(kv.first) != c.mode_of[id]) continue;
            const Round& r = kv.second;
            for (size_t i = 0; i < r.members.size(); ++i)
                if (r.members[i] == t && !r.pending[i].empty()) open = true;
        }
        if (open)
            fail("cross-core-flag", api, loc,
                 fmt("flag %d is set in mode %d on %s while its mode-%d use is not finished (a set not yet matched "
                     "or a firing not yet waited for): a flag id may change modes on a core only after every set "
                     "and wait of the earlier mode completed; use another flag id",
                     id, mode, core_label(t).c_str(), c.mode_of[id]));
    }
    c.mode_of[id] = mode;
    const Firing a{time, x.clocks ? cross_release(c, t) : nullptr};
    if (x.clocks) s.phase = static_cast<uint32_t>(c.snapshots.size() - 1);
    if (mode == 2 && c.kind == 1) {   // the AIC signals each AIV of its block
        for (size_t u = 0; u < x.cores.size(); ++u)
            if (x.cores[u].group == c.group && x.cores[u].kind == 0)
                cross_deliver(static_cast<int>(u), id, a, api, loc);
        return;
    }
    if (mode == 2) {   // the AIVs of a block signal its AIC once all have set
        auto same_block_aivs = [](const CoreSlot& me, const CoreSlot& o) { return o.group == me.group && o.kind == 0; };
        auto aic = [](const CoreSlot& me, const CoreSlot& o) { return o.group == me.group && o.kind == 1; };
        cross_arrive({2, c.group, id}, cross_members(same_block_aivs, t), cross_members(aic, t), t, id, a, api, loc);
        return;
    }
    if (mode == 1) {
        auto same_block_aivs = [](const CoreSlot& me, const CoreSlot& o) { return o.group == me.group && o.kind == 0; };
        std::vector<int> m = cross_members(same_block_aivs, t);
        cross_arrive({1, c.group, id}, m, m, t, id, a, api, loc);
        return;
    }
    auto same_kind = [](const CoreSlot& me, const CoreSlot& o) { return o.kind == me.kind; };
    std::vector<int> m = cross_members(same_kind, t);
    cross_arrive({0, c.kind, id}, m, m, t, id, a, api, loc);
}

double cross_barrier(bool aiv_only, double time, const char* api, const Loc& loc) {
    CrossCores& x = g_cross;
    State& s = S();
    const int t = s.thread;
    const int id = aiv_only ? XBARRIER_AIV : XBARRIER_ALL;
    {
        std::lock_guard<std::mutex> lock(x.mu);
        CoreSlot& c = x.cores[static_cast<size_t>(t)];
        if (aiv_only && c.kind == 1)
            fail("cross-core-flag", api, loc, "SyncAll<true> (the default) synchronises the AIVs; an AIC calls "
                 "SyncAll<false>, which waits for every core of the launch");
        const Firing a{time, x.clocks ? cross_release(c, t) : nullptr, s.phase_hbm, s.phase_start};
        auto aivs = [](const CoreSlot&, const CoreSlot& o) { return o.kind == 0; };
        auto all = [](const CoreSlot&, const CoreSlot&) { return true; };
        std::vector<int> m = cross_members(aiv_only ? +aivs : +all, t);
        cross_arrive({id, 0, id}, m, m, t, id, a, api, loc);
    }
    const double release = cross_take(t, id, api, loc);
    s.phase_hbm = 0;
    s.phase_start = release;
    return release;
}

void cross_unconsumed(FILE* out) {
    const CrossCores& x = g_cross;
    int shown = 0;
    auto line = [&](int t, int id, const std::string& msg) {
        if (shown++ >= 8) return;
        const CoreSlot& c = x.cores[static_cast<size_t>(t)];
        std::fprintf(out, "D\twarning\tcross-core-unpaired\tCrossCoreSetFlag\t\t0\t%lld\tflag %d: %s\n",
                     static_cast<long long>(c.block), id, msg.c_str());
    };
    for (size_t t = 0; t < x.cores.size(); ++t)
        for (int id = 0; id < XFLAGS; ++id)
            if (!x.cores[t].counter[id].empty())
                line(static_cast<int>(t), id,
                     fmt("%s received %zu firing(s) it never waited for (every CrossCoreSetFlag needs a matching "
                         "CrossCoreWaitFlag on each core it signals)", core_label(static_cast<int>(t)).c_str(),
                         x.cores[t].counter[id].size()));
    for (const auto& kv : x.rounds) {
        if (std::get<0>(kv.first) >= XFLAGS) continue;
        const Round& r = kv.second;
        for (size_t i = 0; i < r.members.size(); ++i)
            if (!r.pending[i].empty())
                line(r.members[i], std::get<2>(kv.first),
                     fmt("%s set it in mode %d but not every core of the round did, so it never fired",
                         core_label(r.members[i]).c_str(), std::get<0>(kv.first)));
    }
}

}  // namespace asc_sim
