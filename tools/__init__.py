"""kernelpilot engine: compile kernels, read their ISA and traces, and return pydantic models.

Nothing here imports mcp_server/ or evals/; heavy compiler imports (flydsl, triton, torch) happen lazily inside the
frontend that needs them, so importing ``tools`` stays fast.
"""

__version__ = "0.1.0"
