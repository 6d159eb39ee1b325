"""Files as users pass them: `-`, /dev/stdin, FIFOs, process substitution, `-f`, folders."""
import json
import os
import shutil
import subprocess
import threading
from importlib import metadata

import pytest

from drasim.api.loader import manifest_files
from drasim.cli.main import main
from drasim.errors import ManifestError
from tests.cli import clusters
from tests.cli.clusters import command, drasim

CLUSTER = clusters.cluster(1)
PODS = clusters.pods(2)


def node_label(value: str) -> str:
    return f"""apiVersion: v1
kind: Node
metadata:
  name: "n"  # quoted: an unquoted n is a boolean to go-yaml, as kubectl reads it
  labels: {{order: "{value}"}}
status:
  allocatable: {{cpu: "1", pods: "10"}}
"""


def names(out: str) -> list[str]:
    return sorted(f"{o['kind']}/{o['metadata']['name']}" for o in json.loads(out)["items"])


@pytest.fixture
def files(tmp_path):
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "pods.yaml").write_text(PODS)
    return tmp_path


def test_stdin_dash_is_read(files):
    """`-` is standard input, as `kubectl apply -f -`; the result equals reading the file."""
    piped = drasim("simulate", "-", str(files / "pods.yaml"), "-o", "json", input=CLUSTER)
    direct = drasim("simulate", str(files / "cluster.yaml"), str(files / "pods.yaml"), "-o", "json")
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == direct.stdout


def test_dev_stdin_is_read(files):
    """/dev/stdin is not a regular file; it is read all the same (was "no such file or directory")."""
    r = drasim("simulate", "/dev/stdin", "-f", str(files / "pods.yaml"), "-o", "json", input=CLUSTER)
    assert r.returncode == 0, r.stderr
    assert "Pod/p-0" in names(r.stdout)


def test_fifo_is_read(files):
    """A named pipe is read once, whole."""
    fifo = files / "cluster.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(CLUSTER))
    writer.start()
    r = drasim("simulate", str(fifo), str(files / "pods.yaml"), "-o", "json")
    writer.join(5)
    assert r.returncode == 0, r.stderr
    assert "ResourceSlice/node-0-gpu" in names(r.stdout)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for <(...)")
def test_process_substitution_is_read(files):
    """`<(cat cluster.yaml)` is a /dev/fd pipe: read like a file."""
    line = " ".join([*map(lambda a: "'" + a + "'", command("simulate")), f"<(cat '{files / 'cluster.yaml'}')",
                     f"'{files / 'pods.yaml'}'", "-o", "json"])
    r = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Pod/p-1" in names(r.stdout)


def test_stdin_json_without_suffix(files):
    """JSON on standard input (no file suffix to tell) is read as JSON."""
    listing = json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "from-json"}}]})
    r = drasim("simulate", "-", "-o", "json", input=listing)
    assert r.returncode == 0, r.stderr
    assert "Namespace/from-json" in names(r.stdout)


def test_stdin_only_once(files, capsys):
    """Standard input cannot be two phases."""
    assert main(["simulate", "-", "-"]) == 1
    assert "standard input can be given only once" in capsys.readouterr().err


def test_filename_flag_repeats_and_keeps_command_line_order(tmp_path, capsys):
    """-f FILE (repeatable) and positional phases mix; phases apply in command-line order, so the
    last phase's label wins."""
    for v in ("1", "2", "3"):
        (tmp_path / f"{v}.yaml").write_text(node_label(v))
    p = {v: str(tmp_path / f"{v}.yaml") for v in ("1", "2", "3")}
    for argv, want in [(["-f", p["1"], "-f", p["2"]], "2"), ([p["2"], "-f", p["1"]], "1"),
                       (["-f", p["3"], p["1"], "--filename", p["2"]], "2"), ([f"--filename={p['1']}", p["3"]], "3"),
                       ([p["3"], "--", p["2"]], "2")]:
        assert main(["simulate", "-o", "json", *argv]) == 0
        node = next(o for o in json.loads(capsys.readouterr().out)["items"] if o["kind"] == "Node")
        assert node["metadata"]["labels"]["order"] == want, argv


def test_options_after_positionals(files, capsys):
    """Options may come before, between or after the phases."""
    c, p = str(files / "cluster.yaml"), str(files / "pods.yaml")
    assert main(["simulate", c, "-o", "json", p, "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {o["metadata"]["name"] for o in out["items"] if o["kind"] == "Pod"} == {"p-0", "p-1"}


def test_no_phase_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "-o", "json"])
    assert exit_.value.code == 2 and "required: PHASE" in capsys.readouterr().err


def test_version(capsys):
    """--version prints the installed package version."""
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"drasim {metadata.version('drasim')}"


def test_unreadable_folder_is_a_permission_error(tmp_path, monkeypatch, capsys):
    """A folder that cannot be listed is `permission denied`, not an empty phase. (Simulated with
    os.access: the tests may run as root, who can list anything.)"""
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "a.yaml").write_text(node_label("1"))
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(folder) else real_access(p, mode))
    assert main(["simulate", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err == f"error: {folder}: permission denied\n"


def test_unreadable_subfolder_is_a_permission_error(tmp_path, monkeypatch):
    """A subfolder that cannot be listed stops the read (os.walk's error is not swallowed)."""
    (tmp_path / "sub").mkdir()
    real_scandir = os.scandir

    def scandir(path="."):
        if str(path).endswith("sub"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(ManifestError, match=r"sub: permission denied"):
        manifest_files([tmp_path])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file_is_a_permission_error(tmp_path, capsys):
    f = tmp_path / "secret.yaml"
    f.write_text(node_label("1"))
    f.chmod(0)
    assert main(["simulate", str(f)]) == 1
    assert capsys.readouterr().err == f"error: {f}: permission denied\n"


def test_folder_is_read_recursively_in_name_order(tmp_path):
    (tmp_path / "b").mkdir()
    for rel in ("b/2.yaml", "a.yml", "b/1.json", "notes.txt", "c.yaml"):
        (tmp_path / rel).write_text("")
    assert [p.relative_to(tmp_path).as_posix() for p in manifest_files([tmp_path])] == \
        ["a.yml", "b/1.json", "b/2.yaml", "c.yaml"]


def test_stdin_yaml_flow_style_is_not_taken_for_json():
    """`{a: b}` starts like JSON but is YAML: without a suffix to say JSON, it is read as YAML."""
    r = drasim("simulate", "-", "-o", "json", input="{apiVersion: v1, kind: Namespace, metadata: {name: flow}}\n")
    assert r.returncode == 0, r.stderr
    assert "Namespace/flow" in names(r.stdout)


def _namespaces_json(names, sep="\n"):
    return sep.join(json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}) for n in names)


@pytest.mark.parametrize("suffix, sep", [(".json", "\n"), (".json", " "), ("", "\n")])
def test_a_stream_of_json_objects_is_one_document_each(tmp_path, capsys, suffix, sep):
    """What `kubectl get pods -o json | jq '.items[]'` writes: kubectl apply -f reads each object
    (YAMLOrJSONDecoder); it was refused as `invalid JSON ... Extra data`."""
    path = tmp_path / f"stream{suffix}"
    path.write_text(_namespaces_json(["j1", "j2", "j3"], sep) + "\n")
    assert main(["simulate", str(path), "-o", "json"]) == 0
    names = {o["metadata"]["name"] for o in json.loads(capsys.readouterr().out)["items"] if o["kind"] == "Namespace"}
    assert {"j1", "j2", "j3"} <= names


def test_a_bad_object_in_a_json_stream_is_named_by_its_place(tmp_path, capsys):
    path = tmp_path / "stream.json"
    path.write_text(_namespaces_json(["j1"]) + '\n{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "j2"},}\n')
    assert main(["simulate", str(path)]) == 1
    column = len('{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "j2"},') + 1
    assert capsys.readouterr().err == (f"error: {path}: invalid JSON at line 2 column {column}: "
                                       "Expecting property name enclosed in double quotes\n")
    path.write_text(_namespaces_json(["j1"]) + '\n{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "j2"}, "x": 1}')
    assert main(["simulate", str(path)]) == 1
    assert capsys.readouterr().err.startswith(f'error: {path}#2: Namespace in version "v1" cannot be handled')
