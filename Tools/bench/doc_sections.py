"""A marked section of docs/benchmarks.md replaced in place: the text between BEGIN and END
markers, or, the first time, the section inserted before an anchor heading (else at the end).
Used by the part-runs (`BENCH_PART=ladder`, `BENCH_PART=browser`) of Tools/bench.sh."""


def replace_section(text, begin, end, section, anchor):
    if begin in text and end in text:
        return text[:text.index(begin)] + section + text[text.index(end) + len(end):]
    if anchor in text:
        return text.replace(anchor, section + "\n\n" + anchor, 1)
    return text.rstrip("\n") + "\n\n" + section + "\n"
