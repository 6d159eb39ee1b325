"""`--html FILE`: one self-contained page per command, opened in headless Chromium (Debian's
`chromium`, installed by .ci/run): the plots render (plotly's SVG is in the DOM after the scripts
ran), the console shows no JavaScript error, nothing is fetched from the network, and a
screenshot is kept in test-artifacts/."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from drasim.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")

CASES = {
    "simulate": (["simulate", str(EX / "gpu-64gi" / "cluster.yaml"), str(EX / "gpu-64gi" / "workload.yaml")], 0, 2),
    "audit": (["audit", str(EX / "audit-mixed")], 1, 1),
    "ledger": (["ledger", str(EX / "ledger-mig" / "cluster.yaml"), str(EX / "ledger-mig" / "workload.yaml")], 0, 2),
    "migrate": (["migrate", str(EX / "migrate-three-nodes" / "cluster.yaml"), "--node", "gpu-1", "--node", "gpu-2",
                 "--driver-slices", str(EX / "migrate-three-nodes" / "driver-slices.yaml"),
                 "--class", str(EX / "migrate-three-nodes" / "class.yaml")], 0, 1),
    "replay": (["replay", str(EX / "timeline" / "trace.yaml"), "--cluster", str(EX / "timeline" / "cluster.yaml")], 0, 3),
}


def browse(page: Path, tmp_path: Path) -> tuple[str, str]:
    """The DOM after the page's scripts ran, and Chromium's log (console messages included)."""
    result = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
                             "--v=0", "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
                            capture_output=True, text=True, timeout=120)
    return result.stdout, result.stderr


def screenshot(page: Path, tmp_path: Path, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    out = ARTIFACTS / f"{name}.png"
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile-shot'}", "--window-size=1280,1600",
                    "--virtual-time-budget=10000", f"--screenshot={out}", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_report_renders_in_a_browser(name, tmp_path, capsys):
    argv, status, min_plots = CASES[name]
    page = tmp_path / f"{name}.html"
    assert main([*argv, "--html", str(page)]) == status
    capsys.readouterr()
    text = page.read_text()
    assert not re.search(r'<script[^>]+src="https?://', text), "the page must not load scripts from the network"
    dom, log = browse(page, tmp_path)
    assert dom.count('class="main-svg"') >= min_plots, f"{name}: plots did not render"
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    assert not [line for line in console if "Uncaught" in line or "Error" in line], console
    shot = screenshot(page, tmp_path, f"report-{name}")
    assert shot.stat().st_size > 10_000


def test_sweep_report(tmp_path, capsys):
    from tests.cli.test_sweep_command import CLUSTER, POD, POOLS

    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "workload.yaml").write_text("---\n".join(POD.format(i=i) for i in range(3)))
    (tmp_path / "pools.yaml").write_text(POOLS)
    spec = tmp_path / "sweep.yaml"
    spec.write_text("cluster: cluster.yaml\nworkload: workload.yaml\npools: pools.yaml\nvary: {fleet: [0.5, 1.0]}\n")
    page = tmp_path / "sweep.html"
    assert main(["sweep", str(spec), "--html", str(page)]) == 0
    capsys.readouterr()
    dom, log = browse(page, tmp_path)
    assert dom.count('class="main-svg"') >= 2
    assert "Uncaught" not in log


def test_unwritable_report_path_is_one_clear_error(capsys):
    assert main([*CASES["audit"][0], "--html", "/nonexistent-dir/report.html"]) == 1
    assert "error: --html /nonexistent-dir/report.html: cannot write" in capsys.readouterr().err
