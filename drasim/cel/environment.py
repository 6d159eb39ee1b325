"""The three cel-cpp environments behind the DRA selector environment.

k8s: staging/src/k8s.io/apiserver/pkg/cel/environment/base.go, environment.go;
dynamic-resource-allocation/cel/compile.go; spec cel.md §2, §4.

- NEW: the API server's NewExpressions checker (compatibility version 1.36): no `includes`.
- NEW_LIST: NewExpressions with the alpha gate DRAListTypeAttributes on, which declares `includes`
  (compile.go: the 1.36 VersionedOptions whose FeatureEnabled is EnableListTypeAttributes).
- STORED: kube-scheduler's StoredExpressions checker: everything, `includes` too.
- RUNTIME: the environment programs run in. Its `device` is declared `dyn` because the
  checker's `kubernetes.DRADevice` is a protobuf message, and cel-expr-python only accepts
  a real message for a message-typed variable, while the device's attribute maps must hold
  ints, strings, Semver and Quantity values that google.protobuf.Struct cannot carry.
  Expressions are type-checked against NEW or STORED first; RUNTIME only resolves
  functions, so its laxer typing never lets an invalid expression through.

Each environment is built once, on first use (like cel.GetCompiler()).
"""
from __future__ import annotations

import enum
from functools import cache

from cel_expr_python import cel

from drasim.cel import library
from drasim.cel.types import DEVICE, POOL


class EnvType(enum.Enum):
    NEW = "NewExpressions"
    NEW_LIST = "NewExpressions+DRAListTypeAttributes"
    STORED = "StoredExpressions"
    RUNTIME = "runtime"


# Extensions of the Kubernetes base environment that cel-cpp ships (BASE): bindings for
# cel.bind, optional types, strings v2, lists, sets and two-variable comprehensions.
# cel-cpp knows lists up to version 2 (Kubernetes uses cel-go's version 3).
_EXCLUDED = "".join(f'    - name: "{op}"\n' for op in library.COMPARISON_OPERATORS)
_CONFIG = (
    "stdlib:\n"
    "  exclude_functions:\n"
    f"{_EXCLUDED}"
    "extensions:\n"
    "  - name: bindings\n"
    "  - name: optional\n"
    "  - name: strings\n"
    "    version: 2\n"
    "  - name: lists\n"
    "    version: 2\n"
    "  - name: sets\n"
    "  - name: two-var-comprehensions\n"
)


@cache
def environment(env_type: EnvType) -> cel.Env:
    device_type = cel.Type.DYN if env_type is EnvType.RUNTIME else cel.Type(DEVICE)
    functions = (library.quantity_and_semver_functions()
                 + library.list_functions(with_includes=env_type is not EnvType.NEW)
                 + library.regex_functions()
                 + library.comparison_functions())
    return cel.NewEnv(POOL, config=cel.NewEnvConfigFromYaml(_CONFIG),
                      variables={"device": device_type}, functions=functions)


@cache
def literal_env() -> cel.Env:
    """A bare environment to evaluate literal arguments (regex, duration, timestamp)."""
    return cel.NewEnv(POOL)
