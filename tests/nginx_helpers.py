"""nginx in front of a cluster's processes, with the shipped configurations (deploy/nginx/):
for the proxy tests and the fault benchmark."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.server_helpers import Addressed, free_port

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "deploy" / "nginx" / "laizi.conf"
COMPLETE = ROOT / "deploy" / "nginx" / "nginx.conf"


def nginx_binary(install: bool = False) -> str | None:
    """The nginx program; with ``install``, Debian's ``nginx-light`` is installed first when it
    is missing and we may (root, apt-get).  None: there is none."""
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if found is None and install and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "install", "-y", "-qq", "nginx-light"], env=env, check=False)
        return nginx_binary()
    return found


def pointed(conf: str, ports: list[int], port: int) -> str:
    """A shipped configuration with its upstream's servers at ``ports`` (each with the shipped
    first server's parameters), listening on ``port`` of 127.0.0.1 only."""

    def servers(found: re.Match[str]) -> str:
        indent, parameters = found.group(2), found.group(3)
        return "".join(f"{indent}server 127.0.0.1:{p}{parameters}\n" for p in ports)

    conf, count = re.subn(r"(( *)server 127\.0\.0\.1:\d+([^\n]*)\n)+", servers, conf)
    assert count == 1, "the upstream block of the shipped nginx configuration moved"
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};")
    return re.sub(r" *listen \[::\]:80;\n", "", conf)


def temp_paths(where: Path) -> str:
    return "".join(
        f"  {kind}_temp_path {where / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )


class Nginx(Addressed):
    """nginx with the shipped site, its upstream pointed at ``ports``, on a free port (or with
    the shipped complete configuration, as it is but for its ports and paths)."""

    def __init__(self, where: Path, ports: list[int], complete: bool = False) -> None:
        program = nginx_binary()
        if program is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
        self.program = program
        self.port = free_port()
        self.where = where
        user = "user root;\n" if os.geteuid() == 0 else ""
        if complete:
            conf = pointed(COMPLETE.read_text(), ports, self.port)
            for shipped, here in [
                ("user www-data;\n", user),
                ("pid /run/nginx.pid;", f"pid {where / 'nginx.pid'};"),
                ("error_log /var/log/nginx/error.log", f"error_log {where / 'error.log'}"),
                ("access_log /var/log/nginx/access.log;", f"access_log {where / 'access.log'};"),
                ("http {\n", "http {\n" + temp_paths(where)),
            ]:
                assert shipped in conf, f"deploy/nginx/nginx.conf: {shipped!r} moved"
                conf = conf.replace(shipped, here, 1)
            (where / "nginx.conf").write_text(conf)
            self.proc: subprocess.Popen[bytes] | None = None
            return
        (where / "laizi.conf").write_text(pointed(SITE.read_text(), ports, self.port))
        (where / "nginx.conf").write_text(
            f"{user}worker_processes 1;\npid {where / 'nginx.pid'};\n"
            f"error_log {where / 'error.log'} warn;\nevents {{ worker_connections 1024; }}\n"
            f"http {{\n  access_log off;\n{temp_paths(where)}"
            f"  include {where / 'laizi.conf'};\n}}\n"
        )
        self.proc = None

    def __enter__(self) -> Nginx:
        conf = str(self.where / "nginx.conf")
        tested = subprocess.run(
            [self.program, "-t", "-p", str(self.where), "-c", conf], capture_output=True
        )
        assert tested.returncode == 0, tested.stderr.decode()
        self.proc = subprocess.Popen(
            [self.program, "-p", str(self.where), "-c", conf, "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{self.http}/healthz", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                if time.monotonic() > deadline:
                    self.__exit__()
                    raise AssertionError((self.where / "error.log").read_text()) from None
                time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
