# Prints, one a line, what meson needs to build against the torch this
# interpreter imports: its include directory, its library directory and
# its C++ ABI flag and its version.
import os

import torch

root = os.path.dirname(torch.__file__)
print(os.path.join(root, "include"))
print(os.path.join(root, "lib"))
print(int(torch._C._GLIBCXX_USE_CXX11_ABI))
print(torch.__version__)
