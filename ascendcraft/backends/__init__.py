"""Where generated kernels run: ``sim`` (the AscendC CPU simulator, ``ascendcraft.sim``) or ``npu``
(the CANN toolkit and an Ascend device, :mod:`ascendcraft.backends.npu`). See docs/backends.md."""
