"""Debian's nginx as the signed media origin of the KAS's delivery routes (docs/delivery.md,
"Signed media URLs on nginx"): the server block is the one `kas origin-config` prints, run by a
private nginx (its own prefix, pid, logs and temporary paths; never the system service)."""
import os
import socket
import subprocess
import time


class NginxOrigin:
    """nginx serving `root` on a free loopback port with `kas origin-config`'s block: secure_link
    over the secret file it creates, CORS for `cors_origin`, and an access log without queries."""

    def __init__(self, kas_binary, root, prefix, cors_origin, port, wait=60):
        nginx = next((p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if os.access(p, os.X_OK)), None)
        if nginx is None:
            raise RuntimeError("browser suite: nginx is missing (make deps installs Debian's nginx without starting it)")
        for directory in ("logs", "tmp"):
            os.makedirs(os.path.join(prefix, directory), exist_ok=True)
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.secret_file = os.path.join(prefix, "origin-secret.conf")
        self.access_log = os.path.join(prefix, "logs", "origin.access.log")
        # `cors_origin`: one origin, or a list of them (the option repeated).
        origins = [cors_origin] if isinstance(cors_origin, str) else cors_origin
        block = subprocess.run([kas_binary, "origin-config", "--root", root, "--secret-file", self.secret_file,
                                "--listen", f"127.0.0.1:{port}", *(f for o in origins for f in ("--cors-origin", o)), "--access-log", self.access_log],
                               capture_output=True, text=True)
        if block.returncode != 0:
            raise RuntimeError(f"kas origin-config failed: {block.stderr.strip()}")
        temp = os.path.join(prefix, "tmp")
        configuration = f"""daemon off;
master_process on;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
{block.stdout}
}}
"""
        self.config = os.path.join(prefix, "nginx.conf")
        with open(self.config, "w") as f:
            f.write(configuration)
        self.error_log = os.path.join(prefix, "logs", "error.log")
        self.process = subprocess.Popen([nginx, "-p", prefix, "-c", self.config], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        log = open(self.error_log).read()[-2000:] if os.path.exists(self.error_log) else ""
        raise RuntimeError(f"nginx did not start on port {port}: {log}")

    def requests(self):
        """(method, path, status) of every request, from the access log (paths without queries)."""
        out = []
        with open(self.access_log) as f:
            for line in f:
                request = line.split('"')[1].split(" ")
                out.append((request[0], request[1], int(line.split('"')[2].split()[0])))
        return out

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(3)   # SIGQUIT: graceful, the workers exit with the master
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
