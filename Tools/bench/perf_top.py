"""Where a `perf record -g` file spent its time, Swift names demangled: one JSON line with the share
per shared object, the top functions by self time, and the top user-space functions by inclusive
time (the function and what it calls; needs `--call-graph dwarf` to see through libcrypto, which
has no frame pointers)."""
import json
import subprocess
import sys

# Dispatch and glue frames that every request passes through: they say nothing about where it goes.
SKIP = ("(inlined)", "partial apply", "protocol witness", "reabstraction", "@objc", "merged ", "outlined ",
        "thunk", "closure #", "MiddlewareChain", "accessHandlerCallback", "ServerCore", "HTTPResponder",
        "start_thread", "clone3", "withUnsafe", "withNonNullBytes", "0x", "0000", "__GI_", "malloc")

name, data = sys.argv[1:3]


def report(*options: str) -> list[str]:
    return subprocess.run(["perf", "report", "-i", data, "--stdio", "-g", "none", *options],
                          check=True, capture_output=True, text=True).stdout.splitlines()


def demangle(symbols: list[str]) -> list[str]:
    out = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(symbols),
                         capture_output=True, text=True).stdout.splitlines()
    return out if len(out) == len(symbols) else symbols


def clean(symbol: str) -> str:
    symbol = symbol.strip()
    while symbol.endswith(" -"):   # empty parent columns perf adds for some binaries
        symbol = symbol[:-2].rstrip()
    return symbol


lines = report("--no-children", "--sort", "dso,symbol", "--percent-limit", "0.8")
samples = next((line.lstrip("# ").strip() for line in lines if line.startswith("# Samples")), "")
self_rows = []
for line in lines:
    parts = line.strip().split(None, 3)
    if len(parts) == 4 and parts[0].endswith("%") and not line.startswith("#"):
        self_rows.append((parts[0], parts[1], clean(parts[3])))
self_rows = self_rows[:15]

dso_rows = []
for line in report("--no-children", "--sort", "dso"):
    parts = line.strip().split(None, 1)
    if len(parts) == 2 and parts[0].endswith("%") and not line.startswith("#"):
        dso_rows.append((parts[0], parts[1].strip()))
dso_rows = dso_rows[:8]

inclusive = []
for line in report("--children", "--sort", "symbol", "--percent-limit", "2"):
    parts = line.strip().split(None, 3)
    if len(parts) == 4 and parts[0].endswith("%") and parts[2] == "[.]" and not line.startswith("#"):
        symbol = clean(parts[3])
        if symbol.startswith("0x") or symbol.startswith("0000"):
            continue
        inclusive.append((parts[0], symbol))
names = demangle([s for _, s in inclusive])
inclusive = [(p, n) for (p, _), n in zip(inclusive, names)
             if not any(word in n for word in SKIP) and float(p.rstrip("%")) < 85][:25]

print(json.dumps({"kind": "profile", "name": name, "samples": samples,
                  "dso": [{"percent": p, "dso": d} for p, d in dso_rows],
                  "top": [{"percent": p, "dso": d, "symbol": s[:160]}
                          for (p, d, _), s in zip(self_rows, demangle([r[2] for r in self_rows]))],
                  "inclusive": [{"percent": p, "symbol": s[:160]} for p, s in inclusive]}))
