"""What the Python suites of Tests-E2E (Browser, Monitoring, OpenID) share: running a tool,
a free loopback port, and waiting for a condition with a bound. Each suite adds this directory to
sys.path and binds `poll` to its own bound (a busy 2-core machine sets them)."""
import socket
import subprocess
import time


def run(*args, **kwargs):
    """A tool's standard output; a non-zero exit raises with the end of its standard error."""
    result = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:3])} failed: {result.stderr.strip()[-2000:]}")
    return result.stdout


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def poll(condition, what, timeout, interval=0.5):
    """The first truthy value of `condition()`, asked every `interval` seconds; after `timeout`
    seconds an AssertionError naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
