"""Commands from outside the engine join `kernelpilot` through the "kernelpilot.commands" entry-point group."""

from tools import cli


def test_a_plugin_that_cannot_be_imported_is_listed_and_says_why(monkeypatch):
    monkeypatch.setattr(cli, "_declared_plugins", lambda: {"ghost": "no_such_package.cli"})
    assert cli.plugin_commands() == {
        "ghost": (
            "no_such_package.cli",
            "(from no_such_package.cli, which cannot be imported here: ModuleNotFoundError)",
        )
    }


def test_a_plugin_never_shadows_an_engine_command(monkeypatch):
    monkeypatch.setattr(cli, "_declared_plugins", lambda: {"dump-ir": "evals.cli", "eval": "evals.cli"})
    assert list(cli.plugin_commands()) == ["eval"]


def test_without_installed_metadata_the_group_is_read_from_pyproject(monkeypatch):
    # an editable install made before the group existed has no entry points in it: the tree's pyproject.toml answers
    monkeypatch.setattr(cli.metadata, "entry_points", lambda group: [])
    assert cli._declared_plugins() == {"eval": "evals.cli"}


def test_running_a_plugin_command_that_cannot_be_imported_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "ghost", ("no_such_package.cli", "a broken plugin"))
    assert cli.main(["ghost"]) == 2
    assert (
        capsys.readouterr().err
        == "error: command module no_such_package.cli is not installed\nhint: reinstall kernelpilot\n"
    )
