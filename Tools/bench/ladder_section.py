"""The "Packaging a bitrate ladder" section of docs/benchmarks.md (issue 18), rendered from the
JSON lines of one bench run. report.py includes it in a whole run; `BENCH_PART=ladder make bench`
runs only this part and splices the section into the existing docs/benchmarks.md:

    ladder_section.py RESULTS.jsonl docs/benchmarks.md
"""
import statistics
import sys
import time

from doc_sections import spliced

BEGIN, END = "<!-- ladder:begin -->", "<!-- ladder:end -->"


def runs_table(tools):
    """The table of alternating runs: per (name, runs, output bytes) the median wall time and its
    range, the median CPU and peak RSS."""
    med = lambda rows, field: statistics.median(r[field] for r in rows)
    out = ["| Tool | Median wall | Min–max | CPU user+sys median | Peak RSS median | Output bytes |",
           "|---|---:|---:|---:|---:|---:|"]
    for name, rows, size in tools:
        walls = [r["wall_s"] for r in rows]
        out.append(f"| {name} | {statistics.median(walls):.3f} s | {min(walls):.3f}–{max(walls):.3f} | "
                   f"{med(rows, 'cpu_s'):.2f} s | {med(rows, 'rss_kb') / 1024:.0f} MiB | {size:,} |")
    return out


def render(records, partial=False):
    """(lines, target) where target is (name, measured, verdict) for the targets table."""
    every = lambda kind: [r for r in records if r["kind"] == kind]
    commands = {r["name"]: r["command"] for r in every("command")}
    code = lambda name: f"```\n{commands[name]}\n```" if name in commands else ""
    runs = lambda tool: [r for r in every("run") if r["group"] == "ladder" and r["tool"] == tool]
    ours, shaka = runs("ours"), runs("shaka")
    if not ours or not shaka:
        return [], None
    med = lambda rows, field: statistics.median(r[field] for r in rows)
    rungs = every("ladder_rungs")[0]
    check = every("ladder_check")[0]
    sizes = next(r for r in every("sizes") if "ladder_ours_bytes" in r)
    auto = every("ladder_auto")[0]
    ratio = med(ours, "wall_s") / med(shaka, "wall_s")
    out = [BEGIN, "## 1b. Packaging a bitrate ladder", ""]
    if partial:
        load = every("load")
        out += [f"Measured by `BENCH_PART=ladder make bench` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
                f"(this section only; load average {load[0]['loadavg'] if load else '?'} at its start, a shared machine).", ""]
    out += [f"Four pre-made renditions of the 1080p clip ({', '.join(f'`{f}`' for f in rungs['files'])}; "
            f"{rungs['bytes']:,} bytes; libx264 with 2 s closed GOPs, made once by ffmpeg and cached) and the clip's "
            "audio, 6 s segments: ours writes tdf-hls (every segment a Standard TDF with its own key, wrapped to the "
            "KAS), Shaka Packager 3.8.0 clear HLS (a segment file each, as ours). "
            f"{len(ours)} alternating runs each after one unrecorded run of each.", "",
            code("ladder-ours"), "", code("ladder-shaka"), ""]
    out += runs_table((("packager (ours, tdf-hls)", ours, sizes["ladder_ours_bytes"]),
                       ("Shaka Packager 3.8.0 (clear HLS)", shaka, sizes["ladder_shaka_bytes"])))
    out += ["", f"Wall-time ratio ours / Shaka (medians): **{ratio:.2f}**. Both ladders have "
            f"{check['variants']} variants with the same heights and the same {check['segments']} video segment "
            f"boundaries (`Tools/bench/ladder_check.py`, PyPI m3u8: {'same' if check['same'] else 'DIFFERENT'}); "
            f"RESOLUTION ours {', '.join(check['ours_resolution'])}, Shaka's {', '.join(check['shaka_resolution'])} "
            "(Shaka applies the 1280:1281 sample aspect ratio ffmpeg's scale filter writes at 480p; we write the coded "
            "size, as ffprobe reports it); "
            f"BANDWIDTH ours {', '.join(f'{b:,}' for b in check['ours_bandwidth'])} "
            f"(the `.tdf` bytes, audio included), Shaka's {', '.join(f'{b:,}' for b in check['shaka_bandwidth'])}.", "",
            "`--ladder` makes the rungs itself (libx264, an IDR forced every 2 s), timed apart from packaging "
            "(one run):", "", code("ladder-auto"), "",
            f"ffmpeg: **{auto['ffmpeg_s']:.1f} s** for {auto['variants']} rungs; packaging them: "
            f"**{auto['packaging_s']:.2f} s**.", ""] + cmaf_lines(records, code, med) + [END]
    target = ("Ladder packaging wall time ≤ Shaka Packager's (ratio ≤ 1.0)",
              f"ratio {ratio:.2f} ({med(ours, 'wall_s'):.3f} s vs {med(shaka, 'wall_s'):.3f} s)",
              "met" if ratio <= 1.0 else f"**missed** by {100 * (ratio - 1):.0f} %")
    return out, target


def codecs_verdict(check):
    """Whether the two ladders' CODECS agree; RFC 6381's hexadecimal parameters compared without
    letter case (Shaka writes lower case, we write upper)."""
    fold = lambda codecs: [sorted(c.strip().lower() for c in text.split(",")) for text in codecs]
    if fold(check["ours_codecs"]) != fold(check["shaka_codecs"]):
        return "different"
    return "the same" if check["ours_codecs"] == check["shaka_codecs"] else "the same (hexadecimal digits' letter case aside, RFC 6381)"


def cmaf_lines(records, code, med):
    """The same rungs as a cmaf package against Shaka Packager's cbcs ladder (issue 29): both
    encrypt every sample, so here the work compared is the same."""
    runs = lambda tool: [r for r in records if r["kind"] == "run" and r["group"] == "cmaf-ladder" and r["tool"] == tool]
    ours, shaka = runs("ours"), runs("shaka")
    checks = [r for r in records if r["kind"] == "cmaf_ladder_check"]
    sizes = next((r for r in records if r["kind"] == "sizes" and "cmaf_ours_bytes" in r), None)
    if not ours or not shaka or not checks or not sizes:
        return []
    check = checks[0]
    out = ["### The same rungs as cmaf (cbcs) against Shaka Packager's cbcs", "",
           "The four rungs and the audio packaged with `--profile cmaf` (CMAF `cbcs`, one video key and one audio "
           "key, the W3C common `pssh`, HLS master and DASH MPD; the keys wrapped to the KAS in `manifest.json`) and "
           "by Shaka Packager 3.8.0 with `--protection_scheme cbcs` and raw keys (the same layout: a directory per "
           f"rendition, an HLS master and an MPD). {len(ours)} alternating runs each after one unrecorded run of each.", "",
           code("cmaf-ladder-ours"), "", code("cmaf-ladder-shaka"), ""]
    out += runs_table((("packager (ours, cmaf)", ours, sizes["cmaf_ours_bytes"]),
                       ("Shaka Packager 3.8.0 (cbcs)", shaka, sizes["cmaf_shaka_bytes"])))
    ratio = med(ours, "wall_s") / med(shaka, "wall_s")
    out += ["", f"Wall-time ratio ours / Shaka (medians): **{ratio:.2f}**. Variants and video segment boundaries "
            f"({check['variants']} variants, {check['segments']} segments): {'the same' if check['same'] else 'DIFFERENT'}; "
            f"CODECS {codecs_verdict(check)} (ours {'; '.join(check['ours_codecs'])}; "
            f"Shaka's {'; '.join(check['shaka_codecs'])}); BANDWIDTH ours {', '.join(f'{b:,}' for b in check['ours_bandwidth'])}, "
            f"Shaka's {', '.join(f'{b:,}' for b in check['shaka_bandwidth'])} (largest difference "
            f"{check['bandwidth_max_diff_pct']:.2f} %).", ""]
    return out


def splice(results, doc):
    text, _ = spliced(results, doc, render, BEGIN, END, "## 2. Playback", "ladder_section: the results hold no ladder runs")
    open(doc, "w").write(text)


if __name__ == "__main__":
    splice(sys.argv[1], sys.argv[2])
