"""``torch.compile`` as a profile calls it: the variants (each a ``torch.compile`` call), the recording backend
every variant compiles through (it hands each graph to Inductor, or another backend, unchanged, and records what
it saw), the kernel binaries a compile built, and Dynamo's caches left as the profile found them.

Contract: code compiled through ``RecordingBackend`` is the code plain ``torch.compile`` with the same arguments
would run; the backend registers as ``compile_profile`` (the torch entry point ``compile_profile =
compile_profile.engine.compiler.backend:compile_profile_backend``).  Nothing here runs the target.

  variants.py       ``VariantSpec``: a compiled variant's backend, mode, options, and the ``torch.compile`` call
  backend.py        ``RecordingBackend`` and ``RecordedGraph``: each Dynamo graph recorded, then handed off
  kernel_builds.py  the kernel binaries built during a compile, counted in Inductor's cache directory
  dynamo_state.py   Dynamo's in-memory caches left as the profile found them
"""
