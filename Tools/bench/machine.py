"""One JSON line describing the machine: cores, CPU model, memory, OS, kernel, tool versions."""
import json
import os
import platform
import sys

cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown")
memory_kb = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
os_name = next((line.split("=", 1)[1].strip().strip('"') for line in open("/etc/os-release") if line.startswith("PRETTY_NAME")), "unknown")
swift, shaka, ffmpeg, openssl = sys.argv[1:5]
print(json.dumps({"kind": "machine", "nproc": os.cpu_count(), "cpu": cpu, "memory_gib": round(memory_kb / 1048576, 1),
                  "os": os_name, "kernel": platform.release(), "swift": swift, "shaka": shaka, "ffmpeg": ffmpeg,
                  "openssl": openssl}))
