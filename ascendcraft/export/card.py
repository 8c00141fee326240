"""The dataset card (README.md) of an export: Hugging Face's YAML front matter naming the data
file, then what the records hold, how they were made and what the leakage filter removed."""
from __future__ import annotations

from .leakage import FILTERS
from .records import PAIR_FIELDS, SAMPLE_FIELDS
from .summary import ExportResult, count


def front_matter(data_path: str) -> str:
    """The YAML block ``datasets.load_dataset(DIR)`` reads: one config, one train split."""
    return ("---\n"
            "configs:\n"
            "- config_name: default\n"
            "  data_files:\n"
            "  - split: train\n"
            f"    path: {data_path}\n"
            "tags:\n"
            "- code\n"
            "- ascendc\n"
            "- kernels\n"
            "---\n")


def dataset_card(r: ExportResult, *, command: str, version: str, date: str) -> str:
    data_path = r.data_file.relative_to(r.out).as_posix()
    what = ("(PyTorch op, tile-DSL kernel, AscendC kernel) triples, one per verified kernel" if r.pairs else
            "samples of kernel generation, one record per sample: the prompt, every reply with its feedback and "
            "the stage it reached, the verified kernel, every lowering level and the emitted AscendC")
    kinds = ", ".join(f"{k}: {n}" for k, n in sorted(r.by_kind.items()))
    lines = [front_matter(data_path),
             f"# ascendcraft kernels: {count(r.records, 'pair' if r.pairs else 'record')}", "",
             f"Made by `ascendcraft export`: {what}. Kernels are "
             "written in ascendcraft's tile DSL, checked against the op's PyTorch reference, lowered to AscendC "
             "and run on its AscendC CPU simulator; times are the simulator's cost model, not measurements.", "",
             "## Contents", "",
             f"- `{data_path}`: {count(r.records, 'record')} of {count(r.tasks, 'task')} ({kinds}); "
             f"{r.verified} verified",
             *([f"- {count(r.unhashed, 'record')} without a task hash: the op file was gone at export time"]
               if r.unhashed else []),
             "", "## Fields", "", "| field | meaning |", "|---|---|"]
    lines += [f"| `{name}` | {meaning} |" for name, meaning in (PAIR_FIELDS if r.pairs else SAMPLE_FIELDS)]
    lines += ["", "## How it was made", "",
              f"- command: `{command}`",
              f"- ascendcraft {version}, {date}",
              "- from: " + (", ".join(f"`{s}`" for s in r.sources) or "nothing"),
              f"- records read: {r.read}"]
    if r.without_samples:
        lines.append(f"- bench tasks that gave no record (not run, or stopped before any sample): {r.without_samples}")
    if r.incomplete:
        lines.append(f"- verified records left out of the pairs (no op file or no AscendC in the run): {r.incomplete}")
    if r.failures:
        lines.append(f"- examples that did not lower, skipped: {len(r.failures)} ("
                     + ", ".join(f"`{f.id}`" for f in r.failures) + ")")
    lines += ["", *_leakage_section(r), ""]
    return "\n".join(lines)


def _leakage_section(r: ExportResult) -> list[str]:
    e = r.exclusions
    lines = ["## Leakage filter", ""]
    if not e.active:
        return lines + ["None was applied: this set may hold benchmark tasks (`ascendcraft export --exclude-tasks "
                        "REFERENCE_DIR` leaves them out by id and by content hash)."]
    if e.ids:
        lines.append("- `--exclude-id`: " + ", ".join(f"`{i}`" for i in sorted(e.ids)))
    if e.hashes:
        lines.append("- `--exclude-hash`: " + ", ".join(f"`{h}`" for h in sorted(e.hashes)))
    for path in e.task_paths:
        lines.append(f"- `--exclude-tasks {path}`")
    if e.task_paths:
        lines.append(f"  ({len(e.task_ids)} task ids, {len(e.task_hashes)} content hashes in all)")
    lines += ["", "| filter | records removed |", "|---|---|"]
    lines += [f"| `{name}` | {r.excluded.get(name, 0)} |" for name in FILTERS]
    lines += [f"| **total** | {sum(r.excluded.values())} |", "",
              "A record is counted under the first filter that matches it. Hashes are of each task's defining "
              "files (ascendcraft.identity.task_hash), so a renamed or moved copy of an excluded task is removed "
              "too."]
    if r.unhashed:
        lines += ["", f"{r.unhashed} records have no task hash (their op file was gone at export time): the filter "
                      "could match them by id only."]
    return lines
