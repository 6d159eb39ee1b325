"""Generate drasim/server/protoschema.py, the field table the protobuf decoder (protobody.py) reads.

    python -m drasim.server.protoschema_gen API_DIR APIMACHINERY_DIR > drasim/server/protoschema.py

API_DIR and APIMACHINERY_DIR are checkouts of k8s.io/api and k8s.io/apimachinery at the
reference tag (v0.37.0-beta.0 for v1.37; `git archive TAG | tar -x`). Two sources per message:
- generated.proto (go-to-protobuf's output) gives the wire shape: field numbers, scalar or
  message types (fully resolved), repeated, map<K,V>;
- the Go types (types.go and friends) give what the JSON of the decoded struct looks like:
  the json name, omitempty / omitzero, pointer (presence) and embedded `json:",inline"`
  structs, matched to the proto field by the number in their `protobuf:"..."` tag.
Only messages reachable from the top-level kinds of PACKAGES are kept (List kinds dropped).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

# Go package dir → short prefix used in the table (group/version comes from register.go).
PACKAGES = ["core/v1", "apps/v1", "batch/v1", "resource/v1", "policy/v1", "rbac/v1", "scheduling/v1",
            "coordination/v1", "authorization/v1"]
MACHINERY = ["pkg/apis/meta/v1", "pkg/api/resource", "pkg/util/intstr", "pkg/runtime", "pkg/runtime/schema"]
# Messages whose JSON comes from their own MarshalJSON (protobody._SPECIAL), not from Go fields.
OWN_JSON = {"meta.v1.Time", "meta.v1.MicroTime", "meta.v1.FieldsV1", "resource.Quantity", "intstr.IntOrString",
            "runtime.RawExtension"}
# Top-level messages that are not kinds with ObjectMeta but are sent as request bodies.
EXTRA_ROOTS = ["meta.v1.DeleteOptions"]

FIELD = re.compile(r"^\s*(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;")
MAP_FIELD = re.compile(r"^\s*map\s*<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;")
SCALARS = {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "double", "float"}


def short(full: str) -> str:
    for prefix in ("k8s.io.api.", "k8s.io.apimachinery.pkg.apis.", "k8s.io.apimachinery.pkg.api.",
                   "k8s.io.apimachinery.pkg.util.", "k8s.io.apimachinery.pkg."):
        if full.startswith(prefix):
            return full[len(prefix):]
    raise SystemExit(f"unexpected proto package in {full}")


def parse_proto(path: Path) -> dict[str, list]:
    """message short name → [(number, proto name, type, repeated, map value type or None)]."""
    text = re.sub(r"//[^\n]*", "", path.read_text())
    package = re.search(r"^package\s+([\w.]+);", text, re.M).group(1)

    def resolve(t: str) -> str:
        if t in SCALARS:
            return t
        return short(t[1:] if t.startswith(".") else f"{package}.{t}")
    out: dict[str, list] = {}
    for m in re.finditer(r"^message\s+(\w+)\s*\{(.*?)^\}", text, re.M | re.S):
        fields = []
        for line in m.group(2).splitlines():
            if f := FIELD.match(line):
                fields.append((int(f.group(4)), f.group(3), resolve(f.group(2)), f.group(1) == "repeated", None))
            elif f := MAP_FIELD.match(line):
                fields.append((int(f.group(4)), f.group(3), resolve(f.group(1)), False, resolve(f.group(2))))
        out[f"{short(package)}.{m.group(1)}"] = fields
    return out


GO_FIELD = re.compile(r"^\s*(?:(\w+)\s+)?(\*?[\w.\[\]*]+)\s+`([^`]*)`")


def parse_go(directory: Path) -> tuple[dict[str, dict[int, tuple]], set[str]]:
    """struct name → {proto number: (json name, omitempty, omitzero, pointer, embedded)};
    and the names of Go slice types (`type ExtraValue []string`: JSON is the bare list)."""
    structs: dict[str, dict[int, tuple]] = {}
    slices: set[str] = set()
    for f in sorted(directory.glob("*.go")):
        if f.name.endswith("_test.go") or f.name.startswith("zz_generated") or f.name == "generated.pb.go":
            continue
        text = re.sub(r"//[^\n]*", "", f.read_text())
        slices.update(re.findall(r"^type\s+(\w+)\s+\[\]\w+\s*$", text, re.M))
        for m in re.finditer(r"^type\s+(\w+)\s+struct\s*\{[ \t]*\n(.*?)^\}", text, re.M | re.S):
            fields = {}
            for line in m.group(2).splitlines():
                g = GO_FIELD.match(line)
                if not g:
                    continue
                name, gotype, tag = g.groups()
                pb = re.search(r'protobuf:"\w+,(\d+)', tag)
                js = re.search(r'json:"([^"]*)"', tag)
                if not pb:
                    continue
                parts = (js.group(1) if js else "").split(",")
                fields[int(pb.group(1))] = (parts[0], "omitempty" in parts[1:], "omitzero" in parts[1:],
                                            gotype.startswith("*"), name is None)
            structs[m.group(1)] = fields
    return structs, slices


def build(api: Path, machinery: Path) -> tuple[dict[str, str], dict[str, str], list[str], list[str]]:
    protos: dict[str, list] = {}
    go: dict[str, dict] = {}
    wrappers: set[str] = set()
    groups: dict[str, str] = {}
    dirs = [(api / p, p.replace("/", ".")) for p in PACKAGES] + [(machinery / p, None) for p in MACHINERY]
    for directory, prefix in dirs:
        messages = parse_proto(directory / "generated.proto")
        protos.update(messages)
        structs, slices = parse_go(directory)
        for name in messages:
            go[name] = structs.get(name.rsplit(".", 1)[1], {})
            if name.rsplit(".", 1)[1] in slices:
                wrappers.add(name)
        if prefix:
            group = re.search(r'GroupName\s*=\s*"([^"]*)"', (directory / "register.go").read_text()).group(1)
            version = prefix.rsplit(".", 1)[1]
            groups[f"{group}/{version}" if group else version] = prefix
    roots = [n for n, fields in protos.items() if n.split(".")[0] not in ("meta", "runtime", "schema")
             and not n.endswith("List") and any(f[:3] == (1, "metadata", "meta.v1.ObjectMeta") for f in fields)]
    keep, todo = set(), roots + EXTRA_ROOTS
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        for _, _, t, _, value in protos[name]:
            todo += [x for x in (t, value) if x and x not in SCALARS]
    table: dict[str, str] = {}
    warnings = []
    for name in sorted(keep):
        cells = []
        for number, proto_name, t, repeated, value in protos[name]:
            info = go[name].get(number)
            if info is None and name not in OWN_JSON and name not in wrappers:
                warnings.append(f"{name}.{proto_name}: no Go field with protobuf tag {number}")
            if info is None:
                info = (proto_name, True, False, False, False)
            json_name, omitempty, omitzero, pointer, embedded = info
            flags = "".join(c for c, on in (("r", repeated), ("p", pointer), ("o", omitempty), ("z", omitzero),
                                            ("i", embedded and not json_name)) if on)
            kind = f"{t}>{value}" if value else t
            cells.append(f"{number} {json_name or '-'} {kind} {flags or '.'}")
        table[name] = ";".join(cells)
    return table, groups, sorted(wrappers & keep), warnings


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    table, groups, wrappers, warnings = build(Path(argv[0]), Path(argv[1]))
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    print('"""Generated by drasim/server/protoschema_gen.py from k8s.io/api and k8s.io/apimachinery')
    print("v0.37.0-beta.0 (generated.proto + the Go types' json tags). Do not edit by hand.")
    print()
    print("MESSAGES: message → `number json-name type flags` cells, `;`-separated. type: a proto scalar,")
    print("a message, or KEY>VALUE for a map. flags: r repeated, p pointer (presence), o omitempty,")
    print("z omitzero, i embedded inline (`json:\",inline\"`), . none.")
    print('"""')
    print("# fmt: off")
    print("GROUP_VERSIONS = {")
    for gv, prefix in sorted(groups.items()):
        print(f"    {gv!r}: {prefix!r},")
    print("}")
    print(f"LIST_WRAPPERS = frozenset({wrappers!r})")
    print("MESSAGES = {")
    for name, cells in table.items():
        print(f"    {name!r}: {cells!r},")
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
