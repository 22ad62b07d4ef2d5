"""The kernelpilot MCP server: a thin adapter that exposes the tools in ``tools/`` to coding agents.

``server.py`` registers the tools, prompts and artifact resources; ``jobs.py`` runs long work (compiles, profiles)
in killable child processes with progress; ``paths.py`` confines every path to the allowed roots.
"""
