kernel misc(x: gm f16[R, C], m: gm bool[R, C], w: gm f32[C], slope: f32 = 0.5) -> (y: gm f16[R, C], z: gm i32[R]):
    for r in parallel(R):
        t = load(x[r, :])
        keep = load(m[r, :])
        u = where(keep & (t > 0), t, t * slope)
        v = cast(cast(u, f32) * load(w), f16)
        store(y[r, :], cumsum(v, reverse=True, exclusive=True))
        store(z[r], cast(sum(cast(keep, i32)), i32))
