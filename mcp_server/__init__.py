"""The kernelpilot MCP server: a thin adapter that exposes the tools in ``tools/`` to coding agents.

``app.py`` holds the server; ``compile_tools``, ``analysis_tools``, ``trace_tools`` and ``artifact_tools`` define the
tools (results are ``models.ToolResult[T]``, the engine model under ``report``), ``prompts.py`` the skill prompts;
``server.py`` imports them all and serves stdio or HTTP; ``jobs.py`` runs long work (compiles, profiles)
in killable child processes with progress; ``paths.py`` confines every path to the allowed roots.
"""
