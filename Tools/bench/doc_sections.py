"""A marked section of docs/benchmarks.md replaced in place by a part-run of Tools/bench.sh
(`BENCH_PART=ladder`, `BENCH_PART=browser`): the text between BEGIN and END markers, or, the
first time, the section inserted before an anchor heading (else at the end)."""
import json
import sys


def replace_section(text, begin, end, section, anchor):
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
