from . import fakecel

fakecel.install()
