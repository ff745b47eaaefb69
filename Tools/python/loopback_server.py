"""What every loopback test server here shares (standard library only): a test starts one with
its stdin as a pipe, and the server goes when that pipe closes, so a crashed test run leaves no
server behind; SIGTERM stops it too, even when the parent spawned it with signals blocked."""

import os
import signal
import sys
import threading


def allow_termination():
    """Unblocks SIGTERM/SIGINT (a parent that spawns from a thread with signals blocked passes its
    mask on) and makes SIGTERM exit at once."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))


def exit_when_stdin_closes(block=False):
    """Exits the process once stdin reaches end of file: in a daemon thread, or here if `block`."""
    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    if block:
        watch()
    else:
        threading.Thread(target=watch, daemon=True).start()
