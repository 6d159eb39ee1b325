"""Class aliases (ControlPlane.class_alias) are cached per scheduler-cache epoch: an edited
class must not keep the token of its old selectors, or pods asking for its extended resource
would share Filter verdicts with pods of a class that now selects other devices."""
from drasim.controlplane import ControlPlane

GPU = 'device.driver == "gpu.example.com"'
BIG = 'device.attributes["gpu.example.com"].mem > 50'


def _class(name: str, expr: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expr}}], "extendedResourceName": f"example.com/{name}"}}


def _pod(cp: ControlPlane, name: str, resource: str) -> None:
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i", "resources": {"limits": {resource: "1"}}}]}})


def _node(cp: ControlPlane, name: str) -> str | None:
    return cp.store.get("Pod", "default", name)["spec"].get("nodeName")


def test_an_edited_class_gets_a_new_alias():
    cp = ControlPlane()
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
               "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s1"},
               "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "small", "attributes": {"mem": {"int": 40}}},
                                    {"name": "large", "attributes": {"mem": {"int": 80}}}]}})
    cp.create(_class("gpu2", GPU))
    cp.create(_class("gpu3", GPU))   # the same selection: gpu2 and gpu3 pods share verdicts
    _pod(cp, "first", "example.com/gpu3")
    cp.settle()
    _pod(cp, "second", "example.com/gpu2")
    cp.settle()
    cp.delete("Pod", "default", "first")   # the small device is free again, the large one taken
    cp.settle()
    gpu2 = cp.store.get("DeviceClass", None, "gpu2")
    cp.store.update(dict(gpu2, spec=dict(gpu2["spec"], selectors=[{"cel": {"expression": BIG}}])))
    _pod(cp, "big", "example.com/gpu2")      # only the large device would do: pending
    _pod(cp, "small", "example.com/gpu3")    # the small device does: must not take big's verdict
    cp.settle()
    assert _node(cp, "big") is None
    assert _node(cp, "small") == "n1"
