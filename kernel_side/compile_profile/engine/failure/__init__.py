"""What a failed compile was and where it starts to fail: the phase that raised (Dynamo, AOTAutograd, Inductor's
lowering or code generation, the kernel compiler), the cell lines of the graph it was compiling, whether the setup
(a missing compiler) rather than the code is at fault, ``backend="aot_eager"`` tried after an Inductor failure,
``--bisect`` (``torch._inductor.compiler_bisector``) after a failure or a difference, and the compiler settings not
at their defaults, which may be the cause.

Contract: these record facts into the run (``ErrorInfo``'s phase, lines and cause; ``Bisection``;
``ProfileRun.configs_changed``), never words; whatever they switch on in torch (the bisector, its caches-off) is
switched off again, on error and interrupt too.

  compile_failure.py   a compile exception read: its phase, user frames, graph lines; aot_eager and the toolchain
                       tried after it
  bisection.py         ``--bisect``: the backend, pass or op where a failed compile or a difference starts
  changed_settings.py  Inductor's, Dynamo's and functorch's settings not at their defaults
"""
