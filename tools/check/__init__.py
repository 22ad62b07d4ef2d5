"""check: a CPU correctness oracle for GPU kernels (BEFORE vs AFTER on the same inputs).

``compare.check`` orchestrates; ``inputs`` runs ``_inputs_child`` (which builds inputs in a child process) and caches
its results; ``buffers`` compares what both sides wrote and judges a case; ``ir`` loads LLVM IR with llvmlite; ``engine`` and ``ops`` execute it lane by lane
with numpy; ``xlane`` holds the cross-lane reference implementations (MFMA, DPP, swizzle, bpermute);
``flydsl_abi`` maps a FlyDSL jit call to the kernel's parameters.
"""
