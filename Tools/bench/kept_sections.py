"""Carries the sections a whole `make bench` does not measure from the current docs/benchmarks.md
into the newly rendered one: every block between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in
OLD whose NAME the new file lacks is appended to NEW (in OLD's order), so a regeneration never
drops a section written by `BENCH_PART=redis` or kept by hand. `replace_block` is how a partial
run (`BENCH_PART=ladder`, `BENCH_PART=redis`) writes its own section.

    kept_sections.py OLD.md NEW.md
"""
import os
import re
import sys

BLOCK = re.compile(r"<!-- ([a-z0-9-]+):begin -->.*?<!-- \1:end -->", re.S)


def replace_block(text, begin, end, section, anchor):
    """`text` with the block between `begin` and `end` replaced by `section` (which carries both
    markers), or with `section` inserted before the heading `anchor` (else at the end)."""
    if begin in text and end in text:
        return text[:text.index(begin)] + section + text[text.index(end) + len(end):]
    if anchor in text:
        return text.replace(anchor, section + "\n\n" + anchor, 1)
    return text.rstrip("\n") + "\n\n" + section + "\n"


def carry(old_text, new_text):
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
