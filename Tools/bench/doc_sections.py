"""Marked sections of docs/benchmarks.md: a block between `<!-- NAME:begin -->` and
`<!-- NAME:end -->`. A part-run of Tools/bench.sh (`BENCH_PART=ladder`, `browser`, `redis`)
replaces its own block in place (`replace_section`, `spliced`); a whole run renders the file anew
and then carries over every block of the previous file whose NAME it did not render itself
(`carry`: the part-run sections it does not measure, and hand-written ones), so a regeneration
never drops them.

    doc_sections.py OLD.md NEW.md      (carry OLD's blocks into NEW, in place)
"""
import json
import os
import re
import sys

BLOCK = re.compile(r"<!-- ([a-z0-9-]+):begin -->.*?<!-- \1:end -->", re.S)


def replace_section(text, begin, end, section, anchor):
    """`text` with the block between `begin` and `end` replaced by `section` (which carries both
    markers), or, the first time, `section` inserted before the heading `anchor` (else at the end)."""
    if begin in text and end in text:
        return text[:text.index(begin)] + section + text[text.index(end) + len(end):]
    if anchor in text:
        return text.replace(anchor, section + "\n\n" + anchor, 1)
    return text.rstrip("\n") + "\n\n" + section + "\n"


def spliced(results, doc, render, begin, end, anchor, missing):
    """(the new text of `doc`, the targets-table row) from one part-run's RESULTS.jsonl, where
    `render(records, partial=True)` gives (lines, target); exits with `missing` when it gives none."""
    records = [json.loads(line) for line in open(results) if line.strip()]
    lines, target = render(records, partial=True)
    if not lines:
        sys.exit(missing)
    return replace_section(open(doc).read(), begin, end, "\n".join(lines), anchor), target


def splice_with_target(results, doc, render, begin, end, anchor, missing):
    """Writes `doc` with one part-run's section (`spliced`) and its row of the targets table."""
    text, target = spliced(results, doc, render, begin, end, anchor, missing)
    open(doc, "w").write(with_target_row(text, target))


def with_target_row(text, target):
    """`text` with the targets-table row of `target` (name, measured, verdict) replaced, or added
    after the table's last row the first time."""
    row = "| " + " | ".join(target) + " |"
    rows = text.split("\n")
    mine = [i for i, line in enumerate(rows) if line.startswith(f"| {target[0]} |")]
    if mine:
        rows[mine[0]] = row
    elif "## Targets" in text:
        at = next(i for i, line in enumerate(rows) if line.startswith("## Targets"))
        while at + 1 < len(rows) and not rows[at + 1].startswith("|"):
            at += 1
        while at + 1 < len(rows) and rows[at + 1].startswith("|"):
            at += 1
        rows.insert(at + 1, row)
    return "\n".join(rows)


def carry(old_text, new_text):
    """`new_text` with every block of `old_text` whose NAME it lacks appended, in `old_text`'s order."""
    present = {m.group(1) for m in BLOCK.finditer(new_text)}
    kept = [m.group(0) for m in BLOCK.finditer(old_text) if m.group(1) not in present]
    if not kept:
        return new_text
    return new_text.rstrip("\n") + "\n\n" + "\n\n".join(kept) + "\n"


if __name__ == "__main__":
    old_path, new_path = sys.argv[1], sys.argv[2]
    old = open(old_path).read() if os.path.exists(old_path) else ""
    new = open(new_path).read()
    open(new_path, "w").write(carry(old, new))
