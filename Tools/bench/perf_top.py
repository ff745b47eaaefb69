"""Top functions (self time) of a `perf record` file, Swift names demangled: one JSON line."""
import json
import subprocess
import sys

name, data = sys.argv[1:3]
report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,symbol",
                         "-g", "none", "--percent-limit", "0.8"], check=True, capture_output=True, text=True).stdout
rows = []
for line in report.splitlines():
    line = line.strip()
    if not line or line.startswith("#") or "%" not in line.split()[0]:
        continue
    parts = line.split(None, 3)
    if len(parts) < 4:
        continue
    percent, dso, _, symbol = parts
    symbol = symbol.strip()
    while symbol.endswith(" -"):   # empty parent columns perf adds for some binaries
        symbol = symbol[:-2].rstrip()
    rows.append((percent, dso, symbol))
symbols = "\n".join(r[2] for r in rows)
demangled = subprocess.run(["swift", "demangle", "--simplified"], input=symbols, capture_output=True, text=True).stdout.splitlines()
if len(demangled) != len(rows):
    demangled = [r[2] for r in rows]
samples = next((line for line in report.splitlines() if line.startswith("# Samples")), "")
print(json.dumps({"kind": "profile", "name": name, "samples": samples.lstrip("# ").strip(),
                  "top": [{"percent": r[0], "dso": r[1], "symbol": d[:160]} for r, d in zip(rows[:15], demangled[:15])]}))
