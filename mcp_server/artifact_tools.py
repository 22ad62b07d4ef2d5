"""Artifacts (read-artifact and the kernelpilot:// resources) and doctor."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver.exceptions import ResourceError
from pydantic import Field

from mcp_server import artifacts
from mcp_server.app import ANALYSIS, agent_errors, internal_error, mcp
from mcp_server.artifacts import ArtifactPage
from mcp_server.models import DoctorOutput
from mcp_server.paths import allowed_roots, project_dir
from tools.errors import InputError, KernelpilotError, bounded
from tools.toolchain import cache_root

# ---------------------------------------------------------------------------------------------------- artifacts


@mcp.tool(name="read-artifact", title="Read an artifact page", annotations=ANALYSIS)
def read_artifact(
    uri: Annotated[str | None, Field(description="a kernelpilot:// URI from a tool result")] = None,
    path: Annotated[str | None, Field(description="or a file path under the project or the kernelpilot cache")] = None,
    offset: Annotated[int, Field(description="first line (0-based)", ge=0)] = 0,
    limit: Annotated[int, Field(description="lines per page", ge=1, le=5000)] = artifacts.PAGE_LINES,
    pattern: Annotated[
        str | None, Field(description="regex: return only matching lines (prefixed by line number)")
    ] = None,
) -> ArtifactPage:
    """Read a page of a large text artifact (IR stage, ISA, liveness table, trace) by lines, or grep it.

    Pages are at most ~24k characters; next_offset says where the next page starts.
    """
    with agent_errors(read_artifact):
        if not uri and not path:
            raise InputError("give uri or path", hint="use a uri from a dump-ir or analysis result")
        target = artifacts.resolve_uri(uri) if uri else Path(path)
        return artifacts.read_page(target, offset=offset, limit=limit, pattern=pattern, uri=uri)


@contextmanager
def resource_errors() -> Iterator[None]:
    """KernelpilotError → ResourceError, whose text reaches the client (any other exception's does not)."""
    try:
        yield
    except KernelpilotError as exc:
        raise ResourceError(bounded(exc.render())) from exc
    except ResourceError:
        raise
    except Exception as exc:
        raise ResourceError(bounded(internal_error(exc))) from exc


def _resource_text(target: Path, uri: str, offset: int, limit: int) -> str:
    """A page of ``target``; when more follows, a last line says which URI reads the next page."""
    page = artifacts.read_page(target, offset=offset, limit=limit)
    if page.next_offset is None:
        return page.text
    return page.text + (
        f"\n[kernelpilot: lines {page.offset}-{page.next_offset - 1} of {page.total_lines}; "
        f"next page: {uri}?offset={page.next_offset}&limit={limit}]"
    )


@mcp.resource(artifacts.DUMP_URI + "{?offset,limit}", name="dump-stage", mime_type="text/plain")
def dump_stage(dump_id: str, kernel: str, stage: str, offset: int = 0, limit: int = 2000) -> str:
    """One dump-ir stage (IR or ISA text) of one kernel, paged by lines."""
    with resource_errors():
        target = artifacts.resolve_dump(dump_id, kernel, stage)
        return _resource_text(target, artifacts.dump_uri(dump_id, kernel, stage), offset, limit)


@mcp.resource(artifacts.ARTIFACT_URI + "{?offset,limit}", name="analysis-artifact", mime_type="text/plain")
def analysis_artifact(run_id: str, name: str, offset: int = 0, limit: int = 2000) -> str:
    """A file an analysis wrote (per-instruction liveness, full trace tables), paged by lines."""
    uri = artifacts.ARTIFACT_URI.format(run_id=run_id, name=name)
    with resource_errors():
        return _resource_text(artifacts.resolve_uri(uri), uri, offset, limit)


# ---------------------------------------------------------------------------------------------------- doctor


@mcp.tool(name="doctor", title="Check compilers and profilers", annotations=ANALYSIS)
def doctor() -> DoctorOutput:
    """Which compilers, linkers and profilers this machine has, what each enables, and where the server looks."""
    from tools.doctor import doctor as run_doctor

    report = run_doctor()
    missing = [t for t in report.tools if not t.found]
    steps = [f"install {t.name} ({t.detail}) to enable {t.enables}" for t in missing]
    steps.append(f"to read files outside {project_dir()}, add their directory to KERNELPILOT_ALLOWED_ROOTS")
    return DoctorOutput(
        summary=report.summary,
        next_steps=steps,
        report=report,
        project_dir=str(project_dir()),
        allowed_roots=[str(r) for r in allowed_roots()],
        cache_dir=str(cache_root()),
    )
