"""namespacelifecycle.PendingNamespaces: names gathered once answer as the walk over the phase's
Namespaces does, also when a generateName namespace is named later (admitted in place)."""
from hypothesis import given, settings, strategies as st

from drasim.namespacelifecycle import PendingNamespaces, _named_in

names = st.sampled_from(["fleet", "default", "a", "", None, 1, ["x"]])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(names.map(lambda n: {"kind": "Namespace", "metadata": {"name": n}}),
                          st.builds(lambda: {"kind": "Namespace", "metadata": {"generateName": "g-"}}),
                          st.builds(lambda: {"kind": "Namespace"}),
                          # a metadata of the wrong type: decoding reports it after the names are gathered
                          st.sampled_from([5, "x", [1], True]).map(lambda md: {"kind": "Namespace", "metadata": md})),
                 max_size=5),
       st.sampled_from(["fleet", "default", "a", "g-1", "b"]), st.booleans())
def test_gathered_names_answer_as_the_walk(namespaces, ns, name_later):
    pending = PendingNamespaces(namespaces)
    if name_later:   # admission names a generateName namespace in place, after the list was made
        for o in pending:
            if isinstance(o.get("metadata"), dict) and "generateName" in o["metadata"]:
                o["metadata"]["name"] = "g-1"
    assert pending.has(ns) == _named_in(list(pending), ns)
