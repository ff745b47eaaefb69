"""An issuer trusted by its URL alone, against a real OpenID provider: Debian's glewlwyd (SQLite
database initialised from the scripts the package ships, HTTPS with a CA this test makes, on
loopback) and real `kas serve` processes configured with `"discovery": true` (docs/kas.md
"Issuers by discovery"). Access tokens come from glewlwyd's token endpoint by the client
credentials grant; its signing key is rotated through its admin API. Run by `make test` (the
`openid` step).

Two KAS processes watch the one provider: `rotating` sees the rotation and the removal of the
old key (a forged token with a kid nobody published makes it fetch again once its 30 s limiter
allows), `outage` keeps its keys through the provider's outage and shows the staleness in
/metrics once its key set's lifetime (60 s: glewlwyd answers `Cache-Control: no-store`) ends.
Both start together, so the whole run stays near a minute and a half."""
import base64
import functools
import gzip
import json
import os
import shutil
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

ROOT = os.environ.get("MEDIADRM_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.join(ROOT, ".build", os.environ.get("CONFIG", "debug"))
GLEWLWYD = "/usr/bin/glewlwyd"
GLEWLWYD_SCHEMA = "/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz"
# The administrator the package's schema creates (glewlwyd's GETTING_STARTED.md).
ADMIN = {"username": "admin", "password": "password"}
CLIENT_ID = "viewer-app"
AUDIENCE = "kas"  # glewlwyd puts the granted scope in `aud`
ASSET = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"  # a policy uuid; a session start needs no package
WAIT = 90  # seconds: the bound of every poll (a busy 2-core machine; the key set lifetime is 60 s)

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import suite_support  # noqa: E402  (Tests-E2E/suite_support.py: what the Python suites share)
from suite_support import free_port, run  # noqa: E402

poll = functools.partial(suite_support.poll, timeout=WAIT, interval=0.5)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_int(number):
    return b64url(number.to_bytes((number.bit_length() + 7) // 8, "big"))


def private_jwk(kid):
    """A fresh RSA key as the private JWK glewlwyd signs with (its OIDC.md "Keys for JWT")."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.private_numbers()
    public = numbers.public_numbers
    return key, {"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig", "n": b64url_int(public.n), "e": b64url_int(public.e),
                 "d": b64url_int(numbers.d), "p": b64url_int(numbers.p), "q": b64url_int(numbers.q),
                 "dp": b64url_int(numbers.dmp1), "dq": b64url_int(numbers.dmq1), "qi": b64url_int(numbers.iqmp)}


def token_header(token):
    segment = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


class Glewlwyd:
    """glewlwyd on loopback over HTTPS (a server certificate from a CA made here), its SQLite
    database made from the package's own schema, configured through its admin API."""

    def __init__(self, directory):
        self.dir = directory
        self.port = free_port()
        self.base = f"https://127.0.0.1:{self.port}"
        self.issuer = f"{self.base}/api/oidc"
        self.ca = os.path.join(directory, "ca.pem")
        self.make_certificates()
        database = os.path.join(directory, "glewlwyd.db")
        with gzip.open(GLEWLWYD_SCHEMA, "rt") as schema, sqlite3.connect(database) as db:
            db.executescript(schema.read())
        self.config = os.path.join(directory, "glewlwyd.conf")
        with open(self.config, "w") as f:
            f.write(f"""port={self.port}
bind_address="127.0.0.1"
external_url="{self.base}"
login_url="login.html"
api_prefix="api"
static_files_path="/usr/share/glewlwyd/webapp/"
log_mode="console"
log_level="INFO"
cookie_domain="127.0.0.1"
cookie_secure=1
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
user_middleware_module_path="/usr/lib/glewlwyd/user_middleware"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
use_secure_connection=true
secure_connection_key_file="{os.path.join(directory, 'server.key')}"
secure_connection_pem_file="{os.path.join(directory, 'server.pem')}"
hash_algorithm="SHA512"
database = {{
  type = "sqlite3"
  path = "{database}"
}};
""")
        self.log_path = os.path.join(directory, "glewlwyd.log")
        self.process = None
        context = ssl.create_default_context(cafile=self.ca)
        self.opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context),
                                                  urllib.request.HTTPCookieProcessor())
        self.secret = b64url(os.urandom(24))

    def make_certificates(self):
        ca_key, server_key = os.path.join(self.dir, "ca.key"), os.path.join(self.dir, "server.key")
        run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca_key,
            "-out", self.ca, "-days", "2", "-subj", "/CN=OpenID suite test CA")
        csr = os.path.join(self.dir, "server.csr")
        run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", server_key,
            "-out", csr, "-subj", "/CN=127.0.0.1")
        extensions = os.path.join(self.dir, "server.ext")
        with open(extensions, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
        run("openssl", "x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", ca_key, "-CAcreateserial",
            "-out", os.path.join(self.dir, "server.pem"), "-days", "2", "-extfile", extensions)

    def start(self):
        self.log = open(self.log_path, "a")
        self.process = subprocess.Popen([GLEWLWYD, f"--config-file={self.config}"], stdout=self.log, stderr=subprocess.STDOUT)
        poll(lambda: self.call("GET", "/config/")[0] == 200, "glewlwyd to answer over HTTPS")

    def stop(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        self.process = None

    def call(self, method, path, body=None, form=None, headers=None):
        if self.process and self.process.poll() is not None:
            raise RuntimeError(f"glewlwyd exited: {open(self.log_path).read()[-2000:]}")
        data, headers = None, dict(headers or {})
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if form is not None:
            data, headers["Content-Type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=10) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()
        except OSError:
            return None, b""

    def admin(self, method, path, body=None):
        status, answer = self.call(method, path, body)
        if status != 200:
            raise RuntimeError(f"glewlwyd admin {method} {path}: {status} {answer[:300]!r}")

    def configure(self, private_keys):
        """Logs in as the administrator, adds the OpenID Connect plugin instance signing with
        `private_keys` (the first is the default), the scope and the client."""
        self.admin("POST", "/api/auth/", ADMIN)
        self.admin("POST", "/api/mod/plugin/", {"module": "oidc", "name": "oidc", "display_name": "OpenID Connect",
                                                "order_rank": 0, "parameters": self.plugin_parameters(private_keys)})
        self.admin("POST", "/api/scope/", {"name": AUDIENCE, "display_name": "KAS", "description": "Media keys",
                                           "password_required": False})
        self.admin("POST", "/api/client/", {"client_id": CLIENT_ID, "name": "Viewer app", "confidential": True,
                                            "password": self.secret, "authorization_type": ["client_credentials"],
                                            "token_endpoint_auth_method": ["client_secret_basic"],
                                            "scope": [AUDIENCE], "enabled": True, "redirect_uri": []})

    def plugin_parameters(self, private_keys):
        return {"iss": self.issuer, "jwks-private": json.dumps({"keys": private_keys}), "default-kid": private_keys[0]["kid"],
                "jwks-show": True, "jwt-type": "rsa", "jwt-key-size": "256", "access-token-duration": 3600,
                "refresh-token-duration": 1209600, "code-duration": 600, "auth-type-client-enabled": True,
                "auth-type-code-enabled": True, "allowed-scope": ["openid", AUDIENCE], "subject-type": "public",
                "allow-non-oidc": True, "service-documentation": "https://example.invalid"}

    def rotate(self, private_keys):
        """The signing keys replaced through the admin API, the plugin reset to load them
        (glewlwyd's OIDC.md: keys are read when the plugin instance is enabled or reset)."""
        self.admin("PUT", "/api/mod/plugin/oidc", {"display_name": "OpenID Connect", "order_rank": 0,
                                                   "parameters": self.plugin_parameters(private_keys)})
        self.admin("PUT", "/api/mod/plugin/oidc/reset")

    def published_kids(self):
        status, answer = self.call("GET", "/api/oidc/jwks")
        return [key["kid"] for key in json.loads(answer)["keys"]] if status == 200 else None

    def access_token(self):
        basic = base64.b64encode(f"{CLIENT_ID}:{self.secret}".encode()).decode()
        status, answer = self.call("POST", "/api/oidc/token", form={"grant_type": "client_credentials", "scope": AUDIENCE},
                                   headers={"Authorization": f"Basic {basic}"})
        if status != 200:
            raise RuntimeError(f"glewlwyd token endpoint: {status} {answer[:300]!r}")
        return json.loads(answer)["access_token"]


class KASProcess:
    """A real `kas serve` (plain http on loopback) trusting glewlwyd by discovery."""

    def __init__(self, directory, name, provider):
        self.name = name
        self.data = os.path.join(directory, f"{name}-data")
        run(os.path.join(BIN, "kas"), "keys", "generate", "--data-dir", self.data)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = os.path.join(directory, f"{name}.json")
        with open(config, "w") as f:
            json.dump({"listen": f"127.0.0.1:{self.port}", "dataDir": self.data, "devIssuer": False,
                       "issuers": [{"issuer": provider.issuer, "audience": AUDIENCE, "discovery": True,
                                    "caFile": provider.ca, "maxStaleSeconds": 600}]}, f)
        self.log_path = os.path.join(directory, f"{name}.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen([os.path.join(BIN, "kas"), "serve", "--config", config],
                                        stdout=self.log, stderr=subprocess.STDOUT)

    def request(self, method, path, token=None, body=None):
        if self.process.poll() is not None:
            raise RuntimeError(f"kas serve ({self.name}) exited: {open(self.log_path).read()[-2000:]}")
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=20) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()
        except OSError:
            return None, b""

    def session(self, token):
        """Starts a media session (docs/protocol.md: the viewer's budget and stream slots are
        checked and the session stored under the viewer the token names) and ends it; returns
        the start's status. A key request or a playback start would also need the viewer's
        `entitlements` as a JSON array, which glewlwyd cannot put in an access token (it joins
        a multi-valued user property with commas: its OIDC.md "Additional token values")."""
        status, answer = self.request("POST", "/media/v1/session/start", token, {"assetId": ASSET, "protocol": "tdf"})
        if status == 200:
            self.request("DELETE", f"/media/v1/session/{json.loads(answer)['sessionId']}", token)
        return status

    def metric(self, name, issuer):
        _, text = self.request("GET", "/metrics")
        prefix = f'kas_{name}{{issuer="{issuer}"}} '
        values = [line[len(prefix):] for line in text.decode().splitlines() if line.startswith(prefix)]
        return float(values[0]) if values else None

    def events(self, event):
        with open(self.log_path) as f:
            return [json.loads(line) for line in f if line.startswith("{") and f'"event":"{event}"' in line]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


class OpenIDProviderTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in (GLEWLWYD, os.path.join(BIN, "kas")):
            if not os.access(tool, os.X_OK):
                raise RuntimeError(f"openid suite: {tool} is missing (make deps installs glewlwyd; make openid builds kas)")
        cls.work = tempfile.mkdtemp(prefix="kas-openid-")
        # Class cleanups run even when setUpClass fails half-way (tearDownClass would not).
        cls.addClassCleanup(shutil.rmtree, cls.work, ignore_errors=True)
        cls.kases = []
        cls.provider = Glewlwyd(cls.work)
        cls.addClassCleanup(cls.provider.stop)
        cls.first_key, cls.first_jwk = private_jwk("key-1")
        cls.provider.start()
        cls.provider.configure([cls.first_jwk])
        for name in ("rotating", "outage"):
            kas = KASProcess(cls.work, name, cls.provider)
            cls.addClassCleanup(kas.stop)
            cls.kases.append(kas)
        cls.rotating, cls.outage = cls.kases
        for kas in cls.kases:
            # Up once it listened: the first key set fetch happens before the server takes requests.
            poll(lambda kas=kas: kas.request("GET", "/healthz")[0] == 200, f"the {kas.name} KAS to answer /healthz")

    def forged_token(self, kid):
        """A token with the right issuer and audience, signed by a key glewlwyd never published."""
        now = int(time.time())
        header = b64url(json.dumps({"alg": "RS256", "typ": "at+jwt", "kid": kid}).encode())
        payload = b64url(json.dumps({"iss": self.provider.issuer, "aud": AUDIENCE, "sub": "intruder",
                                     "iat": now, "exp": now + 600}).encode())
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        signature = key.sign(f"{header}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{header}.{payload}.{b64url(signature)}"

    def test_rotation_is_followed_without_a_restart_and_an_outage_is_ridden_out(self):
        issuer = self.provider.issuer
        first = self.provider.access_token()
        self.assertEqual(token_header(first)["kid"], "key-1")
        for kas in self.kases:
            self.assertEqual(kas.session(first), 200, f"{kas.name}: a glewlwyd token starts a media session")
            self.assertEqual(kas.metric("issuer_key_set_stale", issuer), 0)
            fetched = kas.events("issuer_key_set_fetched")[0]
            self.assertEqual(fetched["kids"], ["key-1"])
            # glewlwyd answers `Cache-Control: no-store`: the shortest lifetime, a minute.
            self.assertEqual(fetched["lifetimeSeconds"], 60)

        # Rotation, step 1: a new key added and made the signing key; the old one still published.
        _, second_jwk = private_jwk("key-2")
        self.provider.rotate([second_jwk, self.first_jwk])
        self.assertEqual(self.provider.published_kids(), ["key-2", "key-1"])
        second = self.provider.access_token()
        self.assertEqual(token_header(second)["kid"], "key-2")
        for kas in self.kases:
            # Unknown kid: one fetch, at once, and the token is accepted; no restart.
            self.assertEqual(kas.session(second), 200, f"{kas.name}: a token signed with the new key")
            self.assertEqual(kas.metric("issuer_key_set_unknown_kid_refetches_total", issuer), 1)
            self.assertEqual(kas.session(first), 200, f"{kas.name}: the old key is still published")

        # Step 2: the old key removed. Until the KAS fetches again, its tokens still verify.
        self.provider.rotate([second_jwk])
        self.assertEqual(self.provider.published_kids(), ["key-2"])
        self.assertEqual(self.rotating.session(first), 200)
        # A kid nobody published, within 30 s of the last such fetch: refused without a fetch.
        self.assertEqual(self.rotating.session(self.forged_token("random-1")), 401)
        self.assertEqual(self.rotating.metric("issuer_key_set_unknown_kid_refetches_total", issuer), 1)
        # Once the limiter allows (30 s), the next unknown kid fetches again: key-1 is gone.
        poll(lambda: self.rotating.session(self.forged_token("random-2")) == 401
             and self.rotating.metric("issuer_key_set_unknown_kid_refetches_total", issuer) == 2,
             "the rotating KAS to fetch again for an unknown kid after 30 s", timeout=60)
        self.assertEqual(self.rotating.session(first), 401, "a token whose key was removed is refused")
        self.assertEqual(self.rotating.session(second), 200)
        self.assertEqual(self.rotating.events("issuer_key_set_fetched")[-1]["kids"], ["key-2"])

        # The provider goes down. The outage KAS's key set (fetched at the rotation) passes its
        # 60 s lifetime: stale, still verifying both keys it holds, and said so in /metrics and the log.
        self.provider.stop()
        poll(lambda: self.outage.metric("issuer_key_set_stale", issuer) == 1, "the outage KAS to report its key set stale")
        self.assertGreaterEqual(self.outage.metric("issuer_key_set_age_seconds", issuer), 60)
        self.assertEqual(self.outage.metric("issuer_key_set_usable", issuer), 1)
        poll(lambda: (self.outage.metric("issuer_key_set_fetch_failures_total", issuer) or 0) >= 1, "a failed fetch to be counted")
        self.assertTrue(self.outage.events("issuer_key_set_stale"))
        failure = self.outage.events("issuer_key_set_fetch_failed")[0]
        self.assertEqual(failure["code"], "transport")
        self.assertEqual(self.outage.session(second), 200, "cached keys keep working while the provider is down")
        self.assertEqual(self.outage.session(first), 200)
        # No token reached a log.
        for kas in self.kases:
            with open(kas.log_path) as f:
                text = f.read()
            self.assertNotIn(first, text)
            self.assertNotIn(second, text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
