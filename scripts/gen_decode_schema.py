#!/usr/bin/env python3
"""Generate drasim/api/decode_schema.py: the Go types of every kind drasim decodes.

Reads the Go struct definitions of k8s.io/api (core/v1, resource/v1, apps/v1, batch/v1, policy/v1, scheduling) and
k8s.io/apimachinery (meta/v1) and writes, for every struct reachable from the kinds' root
types, its JSON field names and Go types. The table is data (names and types only); drasim's
decoder (drasim/api/decode.py) compiles it.

Usage (the arguments are git directories, e.g. from `git clone --bare`):
    scripts/gen_decode_schema.py --api kubernetes-api.git --apimachinery kubernetes-apimachinery.git
"""
from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

ROOTS = {
    "Pod": "core/v1.Pod", "Node": "core/v1.Node", "Namespace": "core/v1.Namespace",
    "ResourceQuota": "core/v1.ResourceQuota",
    "DeviceClass": "resource/v1.DeviceClass", "ResourceSlice": "resource/v1.ResourceSlice",
    "ResourceClaim": "resource/v1.ResourceClaim", "ResourceClaimTemplate": "resource/v1.ResourceClaimTemplate",
    "DeviceTaintRule": "resource/v1.DeviceTaintRule",
    "Deployment": "apps/v1.Deployment", "ReplicaSet": "apps/v1.ReplicaSet", "StatefulSet": "apps/v1.StatefulSet",
    "DaemonSet": "apps/v1.DaemonSet", "Job": "batch/v1.Job",
    "PodDisruptionBudget": "policy/v1.PodDisruptionBudget",
    "PodGroup": "scheduling/v1beta1.PodGroup", "Workload": "scheduling/v1beta1.Workload",
    "PriorityClass": "scheduling/v1.PriorityClass",
}

# Import path -> the package key used in the table.
PACKAGES = {
    "k8s.io/api/core/v1": "core/v1", "k8s.io/api/resource/v1": "resource/v1", "k8s.io/api/apps/v1": "apps/v1",
    "k8s.io/api/batch/v1": "batch/v1", "k8s.io/api/policy/v1": "policy/v1",
    "k8s.io/api/scheduling/v1": "scheduling/v1",
    "k8s.io/api/scheduling/v1beta1": "scheduling/v1beta1",
    "k8s.io/api/scheduling/v1alpha3": "scheduling/v1alpha3",
    "k8s.io/apimachinery/pkg/apis/meta/v1": "meta/v1",
    "k8s.io/apimachinery/pkg/api/resource": "resource", "k8s.io/apimachinery/pkg/types": "types",
    "k8s.io/apimachinery/pkg/util/intstr": "intstr", "k8s.io/apimachinery/pkg/runtime": "runtime",
}
SOURCES = {  # package key -> (repo, files)
    "core/v1": ("api", ["core/v1/types.go"]),
    "resource/v1": ("api", ["resource/v1/types.go", "resource/v1/devicetaint.go"]),
    "apps/v1": ("api", ["apps/v1/types.go"]),
    "batch/v1": ("api", ["batch/v1/types.go"]),
    "policy/v1": ("api", ["policy/v1/types.go"]),
    "scheduling/v1": ("api", ["scheduling/v1/types.go"]),
    "scheduling/v1beta1": ("api", ["scheduling/v1beta1/types.go"]),   # GenericWorkload (beta, off)
    "scheduling/v1alpha3": ("api", ["scheduling/v1alpha3/types.go"]),   # Job's pod group policy
    "meta/v1": ("apimachinery", ["pkg/apis/meta/v1/types.go"]),
}
# Types with their own UnmarshalJSON, or defined outside the files read: leaves of the table.
LEAVES = {
    "resource.Quantity": "quantity", "meta/v1.Time": "time", "meta/v1.MicroTime": "microtime",
    "intstr.IntOrString": "intorstring", "runtime.RawExtension": "raw", "meta/v1.FieldsV1": "raw",
    "meta/v1.Duration": "duration", "types.UID": "string",
}
BUILTINS = {"string", "bool", "int", "int32", "int64", "uint", "uint32", "uint64", "float32", "float64", "byte"}

_IMPORT = re.compile(r'^\s*(?:(\w+)\s+)?"([^"]+)"\s*$')
_FIELD = re.compile(r'^\s*(\w+)\s+([\w.\[\]*{}]+)\s*(?:`(.*)`)?\s*$')
_EMBEDDED = re.compile(r'^\s*\*?([\w.]+)\s*(?:`(.*)`)?\s*$')
_JSON_TAG = re.compile(r'json:"([^"]*)"')


def read(repo_dir: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", repo_dir, "show", f"HEAD:{path}"], check=True,
                          capture_output=True, text=True).stdout


def imports(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    block = re.search(r"^import \((.*?)^\)", text, re.S | re.M)
    lines = block.group(1).splitlines() if block else re.findall(r'^import (.*)$', text, re.M)
    for line in lines:
        m = _IMPORT.match(line)
        if m and m.group(2) in PACKAGES:
            out[m.group(1) or m.group(2).rsplit("/", 1)[1]] = PACKAGES[m.group(2)]
    return out


def qualify(expr: str, pkg: str, aliases: dict[str, str]) -> str:
    """A Go type expression with every named type as `pkgkey.Name`."""
    if expr.startswith("*"):
        return "*" + qualify(expr[1:], pkg, aliases)
    if expr.startswith("[]"):
        return "[]" + qualify(expr[2:], pkg, aliases)
    if expr.startswith("map["):
        depth, i = 0, 3
        for i in range(3, len(expr)):
            depth += expr[i] == "["
            depth -= expr[i] == "]"
            if depth == 0:
                break
        return f"map[{qualify(expr[4:i], pkg, aliases)}]{qualify(expr[i + 1:], pkg, aliases)}"
    if expr in BUILTINS:
        return expr
    if expr == "interface{}":
        return "runtime.RawExtension"   # free-form JSON, as a RawExtension decodes
    if "." in expr:
        alias, name = expr.split(".", 1)
        return f"{aliases.get(alias, alias)}.{name}"   # unknown packages fail only if reachable
    return f"{pkg}.{expr}"


def parse_package(pkg: str, texts: list[str], structs: dict, named: dict) -> None:
    for text in texts:
        aliases = imports(text)
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            m = re.match(r"^type (\w+) struct \{\s*$", line)
            if m:
                fields, i = [], i + 1
                while not lines[i].startswith("}"):
                    body = lines[i].strip()
                    if body.startswith("//"):
                        body = ""
                    elif "`" in body:
                        body = body[:body.rindex("`") + 1]
                    else:
                        body = body.split("//", 1)[0].strip()
                    i += 1
                    if body.startswith("/*"):   # a block comment inside the struct
                        while "*/" not in lines[i - 1]:
                            i += 1
                        continue
                    if not body:
                        continue
                    f = _FIELD.match(body)
                    if f:
                        tag = _JSON_TAG.search(f.group(3) or "")
                        name = (tag.group(1) if tag else f.group(1)).split(",")[0] or f.group(1)
                        if name != "-":
                            fields.append((name, qualify(f.group(2), pkg, aliases)))
                        continue
                    e = _EMBEDDED.match(body)
                    if e:   # an embedded struct: promoted fields unless its tag gives it a name
                        tag = _JSON_TAG.search(e.group(2) or "")
                        fields.append(((tag.group(1).split(",")[0] if tag else ""), qualify(e.group(1), pkg, aliases)))
                        continue
                    raise SystemExit(f"{pkg}: cannot read field line {body!r}")
                structs[f"{pkg}.{m.group(1)}"] = fields
            else:
                m = re.match(r"^type (\w+) (?:= )?([\w.\[\]*]+)\s*(?://.*)?$", line)
                if m and m.group(2) not in ("struct", "interface"):
                    named[f"{pkg}.{m.group(1)}"] = qualify(m.group(2), pkg, aliases)
            i += 1


def names_in(expr: str) -> list[str]:
    return [t for t in re.findall(r"[\w/]+\.\w+", expr)]


def reachable(structs: dict, named: dict) -> tuple[dict, dict]:
    keep_s, keep_n, todo = {}, {}, list(ROOTS.values())
    while todo:
        t = todo.pop()
        if t in keep_s or t in keep_n or t in LEAVES:
            continue
        if t in structs:
            keep_s[t] = structs[t]
            todo.extend(n for _, ft in structs[t] for n in names_in(ft))
        elif t in named:
            keep_n[t] = named[t]
            todo.extend(names_in(named[t]))
        else:
            raise SystemExit(f"type {t} is not defined in the files read")
    return keep_s, keep_n


def render(structs: dict, named: dict, commits: dict[str, str]) -> str:
    out = ['"""Go types of the kinds drasim decodes: GENERATED by scripts/gen_decode_schema.py, do not edit.',
           "",
           f"From k8s.io/api@{commits['api']} and k8s.io/apimachinery@{commits['apimachinery']}",
           "(types.go of core/v1, resource/v1, apps/v1, batch/v1, policy/v1, scheduling/v1beta1 and meta/v1).",
           "",
           "STRUCTS: Go struct (package key + name) -> (JSON name, Go type) per field; a name \"\"",
           "is an embedded struct whose fields are promoted. NAMED: defined non-struct types.",
           "LEAVES: types with their own JSON decoding. KINDS: kind -> root struct.",
           '"""', "", "KINDS = {"]
    out += [f"    {k!r}: {v!r}," for k, v in ROOTS.items()]
    out += ["}", "", "LEAVES = {"]
    out += [f"    {k!r}: {v!r}," for k, v in LEAVES.items()]
    out += ["}", "", "NAMED = {"]
    out += [f"    {k!r}: {named[k]!r}," for k in sorted(named)]
    out += ["}", "", "STRUCTS = {"]
    for k in sorted(structs):
        out.append(f"    {k!r}: (")
        out += [f"        ({n!r}, {t!r})," for n, t in structs[k]]
        out.append("    ),")
    out += ["}", ""]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--api", required=True, help="git dir of kubernetes/api")
    ap.add_argument("--apimachinery", required=True, help="git dir of kubernetes/apimachinery")
    ap.add_argument("-o", "--output", default=str(Path(__file__).parent.parent / "drasim/api/decode_schema.py"))
    args = ap.parse_args()
    repos = {"api": args.api, "apimachinery": args.apimachinery}
    commits = {k: subprocess.run(["git", "--git-dir", d, "rev-parse", "HEAD"], check=True, capture_output=True,
                                 text=True).stdout.strip() for k, d in repos.items()}
    structs: dict = {}
    named: dict = {}
    for pkg, (repo, files) in SOURCES.items():
        parse_package(pkg, [read(repos[repo], f) for f in files], structs, named)
    structs, named = reachable(structs, named)
    Path(args.output).write_text(render(structs, named, commits))
    print(f"{args.output}: {len(structs)} structs, {len(named)} named types")


if __name__ == "__main__":
    main()
