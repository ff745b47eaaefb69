"""Monitoring against real parts: Debian's Prometheus loads the shipped alert rules
(deploy/prometheus/kas-alerts.yml) and scrapes a real `kas serve`; the counters it stores, and
`increase()` over them, equal the requests the test made. Run by `make test` (the `monitoring`
step, after `promtool check rules` and `promtool test rules`)."""
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
import urllib.request

ROOT = os.environ.get("MEDIADRM_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(ROOT, ".build", os.environ.get("CONFIG", "debug"))
RULES = os.path.join(ROOT, "deploy", "prometheus", "kas-alerts.yml")
WAIT = 60  # seconds: the bound of every poll (a busy 2-core machine)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import suite_support  # noqa: E402  (Tests-E2E/suite_support.py: what the Python suites share)
from suite_support import free_port, run  # noqa: E402

poll = functools.partial(suite_support.poll, timeout=WAIT, interval=0.2)

ROUTE = "/media/v1/key-request"


def get(url, headers=None, data=None):
    request = urllib.request.Request(url, headers=headers or {}, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return None, b""


class PrometheusScrapeTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="kas-prometheus-")
        cls.processes = []
        data = os.path.join(cls.work, "data")
        run(os.path.join(BIN, "kas"), "keys", "generate", "--data-dir", data)
        cls.kas_port = free_port()
        cls.kas = f"http://127.0.0.1:{cls.kas_port}"
        cls.start([os.path.join(BIN, "kas"), "serve", "--listen", f"127.0.0.1:{cls.kas_port}", "--data-dir", data], "kas")
        poll(lambda: get(cls.kas + "/healthz")[0] == 200, "kas serve to answer /healthz")
        cls.token = run(os.path.join(BIN, "kas"), "token", "--sub", "scrape-viewer", "--data-dir", data).strip()

        config = os.path.join(cls.work, "prometheus.yml")
        with open(config, "w") as f:
            json.dump({  # JSON is YAML
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "rule_files": [RULES],
                "scrape_configs": [{"job_name": "kas", "static_configs": [{"targets": [f"127.0.0.1:{cls.kas_port}"]}]}],
            }, f)
        cls.prometheus = f"http://127.0.0.1:{free_port()}"
        cls.start(["prometheus", f"--config.file={config}", f"--storage.tsdb.path={os.path.join(cls.work, 'tsdb')}",
                   f"--web.listen-address={cls.prometheus[len('http://'):]}"], "prometheus")
        poll(lambda: get(cls.prometheus + "/-/ready")[0] == 200, "Prometheus to be ready")

    @classmethod
    def start(cls, arguments, name):
        log = open(os.path.join(cls.work, f"{name}.log"), "w")
        cls.processes.append((subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT), log))

    @classmethod
    def tearDownClass(cls):
        for process, log in cls.processes:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
            log.close()
        shutil.rmtree(cls.work, ignore_errors=True)

    def query(self, expression, at=None):
        parameters = {"query": expression}
        if at is not None:
            parameters["time"] = f"{at:.3f}"
        status, body = get(self.prometheus + "/api/v1/query?" + urllib.parse.urlencode(parameters))
        self.assertEqual(status, 200, body[:500])
        answer = json.loads(body)
        self.assertEqual(answer["status"], "success", answer)
        return answer["data"]

    def key_requests(self, count):
        """`count` key requests with an empty body: each is answered 400 and counted on the route."""
        for _ in range(count):
            status, _ = get(self.kas + ROUTE, {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}, b"{}")
            self.assertEqual(status, 400)

    def samples(self):
        """The scraped samples of the key-request route's 400 counter: [(time, value)]."""
        data = self.query(f'kas_http_requests_total{{job="kas",route="{ROUTE}",status="400"}}[10m]')
        return [(float(t), int(v)) for t, v in data["result"][0]["values"]] if data["result"] else []

    def test_the_scraped_counter_and_its_increase_equal_the_requests_made(self):
        self.key_requests(3)
        poll(lambda: any(v == 3 for _, v in self.samples()), "a scrape holding the first 3 requests")
        self.key_requests(6)
        poll(lambda: any(v == 9 for _, v in self.samples()), "a scrape holding all 9 requests")
        samples = self.samples()
        self.assertEqual(sorted(v for _, v in samples), [v for _, v in samples], "the counter only grows")
        self.assertTrue(set(v for _, v in samples) <= {3, 9}, samples)
        start = max(t for t, v in samples if v == 3)
        end = min(t for t, v in samples if v == 9)
        # A range from the last sample before the second batch to the first after it: no
        # extrapolation past the samples, so increase() is exact.
        window = f"{round((end - start) * 1000)}ms"
        increase = self.query(f'increase(kas_http_requests_total{{job="kas",route="{ROUTE}",status="400"}}[{window}])', at=end)
        self.assertEqual(float(increase["result"][0]["value"][1]), 6.0, increase)

    def test_the_shipped_rules_are_loaded_and_the_connection_guard_counters_are_scraped(self):
        status, body = get(self.prometheus + "/api/v1/rules")
        self.assertEqual(status, 200)
        names = {rule["name"] for group in json.loads(body)["data"]["groups"] for rule in group["rules"]}
        self.assertTrue({"KASDown", "KASKeyRequestErrors", "KASKeyFailuresByReason", "KASStateStoreErrors",
                         "KASConnectionGuardRejections"} <= names, names)
        for series in ("kas_http_connections_refused_total", "kas_http_requests_expired_total"):
            data = poll(lambda: self.query(f'{series}{{job="kas"}}')["result"], f"a scrape of {series}")
            self.assertEqual(data[0]["value"][1], "0", data)
        # A healthy node raises nothing.
        firing = [a for a in self.query("ALERTS")["result"] if a["metric"].get("alertstate") == "firing"]
        self.assertEqual(firing, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
