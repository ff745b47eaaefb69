"""One JSON line per test clip: bytes, duration, video size, frame rate and bit rates (ffprobe)."""
import json
import os
import subprocess
import sys

clips = []
for path in sys.argv[1:]:
    probe = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", path],
                                      check=True, capture_output=True).stdout)
    video = next(s for s in probe["streams"] if s["codec_type"] == "video")
    audio = next(s for s in probe["streams"] if s["codec_type"] == "audio")
    clips.append({"file": os.path.basename(path), "bytes": os.path.getsize(path),
                  "duration_s": round(float(probe["format"]["duration"]), 2),
                  "video": f'{video["codec_name"]} {video["width"]}x{video["height"]} {video["r_frame_rate"]} fps '
                           f'{int(video.get("bit_rate", 0)) / 1e6:.1f} Mb/s',
                  "audio": f'{audio["codec_name"]} {audio["sample_rate"]} Hz {int(audio.get("bit_rate", 0)) / 1e3:.0f} kb/s'})
print(json.dumps({"kind": "media", "clips": clips}))
