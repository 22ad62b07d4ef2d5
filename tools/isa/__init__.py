"""AMDGCN and SASS text models: metadata, instructions, control flow, liveness, per-arch register files."""
