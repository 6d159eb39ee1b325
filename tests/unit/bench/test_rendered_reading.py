"""Rendered templates are read by the loader's line reader when they have its shape (after a
comment header, before trailing blank lines) and by libyaml otherwise — with the same values."""
from __future__ import annotations

import yaml
from hypothesis import given, settings, strategies as st

from drasim.api import yamlfast
from drasim.api.loader import KubeYAMLLoader
from drasim.bench.objects import _content_lines, _read_rendered

keys = st.from_regex(r"[a-z][a-z0-9./-]{0,12}", fullmatch=True)
scalars = st.one_of(st.integers(-10**6, 10**6), st.booleans(), st.none(),
                    st.from_regex(r"[A-Za-z0-9 ._:/-]{0,16}", fullmatch=True), st.sampled_from(["1", "true", "0x1f", "1e3", "~", "null", "-"]))
docs = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(keys, inner, max_size=4)), max_leaves=12)
headers = st.sampled_from(["", "# Pod template\n", "# a\n#b\n\n", "\n  \n# c\n"])
trailers = st.sampled_from(["", "\n", "\n\n", "\n  \n\n"])


@settings(max_examples=300, deadline=None)
@given(doc=st.dictionaries(keys, docs, min_size=1, max_size=5), header=headers, trailer=trailers,
       flow=st.booleans())
def test_values_equal_the_full_yaml_path(doc, header, trailer, flow):
    text = header + yaml.safe_dump(doc, default_flow_style=flow, sort_keys=False) + trailer
    assert _read_rendered(text) == yamlfast.load(text, KubeYAMLLoader)


def test_only_blank_and_comment_lines_around_the_content_go():
    assert _content_lines("# h\n\nkind: Pod\n# inside\nx: 1\n\n \n") == "kind: Pod\n# inside\nx: 1\n"
    assert _content_lines("a: |\n  x\n\n") == "a: |\n  x\n"   # the reader refuses block scalars:
    assert _read_rendered("a: |+\n  x\n\n") == {"a": "x\n\n"}   # the original text is read then
