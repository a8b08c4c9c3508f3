"""Settings: the precedence function, the configuration file, and select/ignore decisions."""
from __future__ import annotations

from pathlib import Path

import pytest
from migrate import settings as config
from migrate.lint.selection import RuleFilter, SelectorError
from migrate.settings import Choice, Settings, SettingsError, resolve

CLI = 2

# (layers: defaults, configuration file, command line) -> expected attributes
PRECEDENCE = [
    ("nothing given", [{}, {}, {}], {"fail_on": None, "arch": ("gfx942",), "rocm": "10.1", "exclude": ()}),
    ("command default", [{"fail_on": "migration-required"}, {}, {}], {"fail_on": "migration-required"}),
    ("file beats command default", [{"fail_on": "migration-required"}, {"fail_on": "incompatible"}, {}],
     {"fail_on": "incompatible"}),
    ("flag beats file", [{}, {"fail_on": "incompatible"}, {"fail_on": "minor-adaptation"}],
     {"fail_on": "minor-adaptation"}),
    ("None is not given", [{}, {"rocm": "6.4"}, {"rocm": None}], {"rocm": "6.4"}),
    ("empty tuple is not given", [{}, {"exclude": ("a/",)}, {"exclude": ()}], {"exclude": ("a/",)}),
    ("flag list replaces file list", [{}, {"arch": ("gfx942",)}, {"arch": ("gfx950", "gfx1100")}],
     {"arch": ("gfx950", "gfx1100")}),
    ("default select", [{}, {}, {}], {"choices": (Choice("ALL", False, 0),)}),
    ("file select replaces the default", [{}, {"select": ("HIP4",)}, {}], {"choices": (Choice("HIP4", False, 1),)}),
    ("flag select replaces the file's", [{}, {"select": ("HIP4",)}, {"select": ("HIP1",)}],
     {"choices": (Choice("HIP1", False, 2),)}),
    ("ignores add up with their level", [{}, {"ignore": ("HIP0001",)}, {"ignore": ("HIP4",)}],
     {"choices": (Choice("ALL", False, 0), Choice("HIP0001", True, 1), Choice("HIP4", True, 2))}),
    ("per-file ignores add up", [{}, {"per_file_ignores": (("t/*", ("HIP4",)),)},
                                 {"per_file_ignores": (("*.py", ("HIP6",)),)}],
     {"per_file_ignores": (("t/*", ("HIP4",)), ("*.py", ("HIP6",)))}),
    ("warnings add up", [{}, {"warnings": ("a",)}, {"warnings": ("b",)}], {"warnings": ("a", "b")}),
    ("unknown override keys are dropped", [{}, {}, {"no_such_setting": 1}], {"fail_on": None}),
]


@pytest.mark.parametrize(("layers", "expected"), [p[1:] for p in PRECEDENCE], ids=[p[0] for p in PRECEDENCE])
def test_resolve_precedence(layers: list[dict], expected: dict) -> None:
    settings = resolve(layers)
    assert {key: getattr(settings, key) for key in expected} == expected


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_configuration_is_found_upward_and_flags_win(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.rocm-migrate]\nfail-on = "incompatible"\nselect = ["HIP4"]\n'
                                       'target-arch = ["gfx950"]\n[tool.rocm-migrate.per-file-ignores]\n'
                                       '"tests/*" = ["HIP4010"]\n')
    nested = tmp_path / "src" / "deep"
    nested.mkdir(parents=True)
    settings = config.load(nested, {"fail_on": "minor-adaptation"}, defaults={"fail_on": "migration-required"})
    assert settings.fail_on == "minor-adaptation"
    assert settings.arch == ("gfx950",)
    assert settings.choices == (Choice("HIP4", False, 1),)
    assert settings.per_file_ignores == (("tests/*", ("HIP4010",)),)
    assert settings.config_file == tmp_path / "pyproject.toml"


def test_dot_file_beats_pyproject_and_pyproject_without_table_is_passed_over(tmp_path: Path) -> None:
    write(tmp_path / ".rocm-migrate.toml", 'ignore = ["HIP0001"]\n')
    write(tmp_path / "sub" / "pyproject.toml", '[project]\nname = "x"\n')
    settings = config.load(tmp_path / "sub", {})
    assert settings.config_file == tmp_path / ".rocm-migrate.toml"
    assert Choice("HIP0001", True, 1) in settings.choices


def test_unknown_keys_are_errors_with_a_suggestion(tmp_path: Path) -> None:
    write(tmp_path / ".rocm-migrate.toml", 'selct = ["HIP4"]\n[effort]\nspeed = 2\n')
    with pytest.raises(config.SettingsError) as error:
        config.load(tmp_path, {})
    path = tmp_path / ".rocm-migrate.toml"
    assert str(error.value).splitlines() == [
        f"{path}: unknown key 'selct' in [tool.rocm-migrate] (did you mean 'select'?)",
        f"{path}: unknown key 'effort.speed'",
    ]


BAD = [  # as ruff does: a bad value stops the run with the file, the key and what is wrong
    ('select = "HIP4"', "key 'select': 'HIP4' is not of type 'array'"),
    ('ignore = [4010]', "key 'ignore': [0]: 4010 is not of type 'string'"),
    ('fail-on = "fatal"', "key 'fail-on': 'fatal' is not one of ['native', 'minor-adaptation', "),
    ('fail-on = 1', "key 'fail-on': 1 is not one of"),
    ('jobs = true', "key 'jobs': True is not of type 'integer'"),
    ('jobs = 0', "key 'jobs': 0 is less than the minimum of 1"),
    ('max-file-size = -5', "key 'max-file-size': -5 is less than the minimum of 1"),
    ('rocm = "7.2; x"', "key 'rocm': does not have the expected form"),
    ('exclude = ["' + "*a" * 40 + '"]', "key 'exclude': [0]: does not have the expected form (a glob of at most"),
    ('per-file-ignores = ["tests/*"]', "key 'per-file-ignores': ['tests/*'] is not of type 'object'"),
    ('[per-file-ignores]\n"tests/*" = "HIP4"', "key 'per-file-ignores': ['tests/*']: 'HIP4' is not of type 'array'"),
    ('workloads = 3', "key 'workloads': 3 is not of type 'object'"),
    ('[effort]\nlearning-rate = "fast"', "key 'effort.learning-rate': 'fast' is not of type 'number'"),
    ('[effort]\nlearning-rate = -1', "key 'effort.learning-rate': -1 is less than or equal to the minimum of 0"),
    ('[effort]\nuncertainty = {native = [1]}', "key 'effort.uncertainty': ['native']: [1] is too short"),
    ('[effort]\nfixed = {native = {smoke = "x"}}', "key 'effort.fixed': ['native']['smoke']: 'x' is not of type"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[b[1][:40] for b in BAD])
def test_bad_values_are_errors_naming_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    write(tmp_path / ".rocm-migrate.toml", text + "\n")
    with pytest.raises(config.SettingsError) as error:
        config.load(tmp_path, {})
    (line,) = str(error.value).splitlines()
    assert line.startswith(f"{tmp_path / '.rocm-migrate.toml'}: {message}")


@pytest.mark.parametrize("text", ["select = [", "tool = 'x'", "[tool]\nrocm-migrate = 5",
                                  "[tool.rocm-migrate]\nx = " + "[" * 5000 + "]" * 5000])
def test_unreadable_or_misshapen_configuration_is_an_error(tmp_path: Path, text: str) -> None:
    name = ".rocm-migrate.toml" if text.startswith(("select", "tool =")) else "pyproject.toml"
    write(tmp_path / name, text + "\n")
    with pytest.raises(config.SettingsError) as error:
        config.load(tmp_path, {"rocm": "6.4"})
    assert str(error.value).startswith(f"{tmp_path / name}: ")


def test_a_broken_pyproject_that_does_not_name_the_tool_is_no_configuration(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[project\nname = 'x'\n")
    assert config.load(tmp_path, {"rocm": "6.4"}).rocm == "6.4"


def test_jobs_from_the_repository_are_capped_at_the_cores(tmp_path: Path) -> None:
    write(tmp_path / ".rocm-migrate.toml", "jobs = 4000\n")
    settings = config.load(tmp_path, {})
    assert settings.jobs == config.CORES
    assert settings.warnings == (f".rocm-migrate.toml: key 'jobs' = 4000 is more than the {config.CORES} cores here; "
                                 f"using {config.CORES}",)
    assert config.load(tmp_path, {"jobs": 3}).jobs == 3  # the command line is the user's own choice


def test_workloads_and_effort_tables_still_work(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.rocm-migrate.workloads]\nops = ["csrc/**"]\n'
                                       '[tool.rocm-migrate.effort]\nlearning-rate = 0.5\n')
    settings = config.load(tmp_path, {})
    assert settings.workloads == {"ops": ["csrc/**"]}
    assert settings.effort == {"learning-rate": 0.5}


def test_command_line_lists() -> None:
    assert config.split_list(["HIP4, HIP1100", "", "sync-mask-32bit"]) == ("HIP4", "HIP1100", "sync-mask-32bit")
    assert config.parse_per_file_ignores(["tests/*:HIP4,HIP1100", "C:/x/*.cu:HIP0"]) == (
        ("tests/*", ("HIP4", "HIP1100")), ("C:/x/*.cu", ("HIP0",)))
    with pytest.raises(SettingsError, match="GLOB:RULE"):
        config.parse_per_file_ignores(["tests/*"])


# Select/ignore: (file layer, command-line layer, rule, path, enabled)
SELECTION = [
    ("everything by default", {}, {}, "HIP4010", "", True),
    ("flag ignore by prefix", {}, {"ignore": ("HIP4",)}, "HIP4010", "", False),
    ("flag ignore leaves others", {}, {"ignore": ("HIP4",)}, "HIP1100", "", True),
    ("flag select by prefix", {}, {"select": ("HIP4",)}, "HIP1100", "", False),
    ("flag select keeps its prefix", {}, {"select": ("HIP4",)}, "HIP4010", "", True),
    ("longer ignore beats shorter select", {}, {"select": ("HIP4",), "ignore": ("HIP4010",)}, "HIP4010", "", False),
    ("shorter ignore loses to longer select", {}, {"select": ("HIP4010",), "ignore": ("HIP4",)}, "HIP4010", "", True),
    ("same length: ignore wins", {}, {"select": ("HIP40",), "ignore": ("HIP40",)}, "HIP4010", "", False),
    ("rule name counts as exact", {}, {"select": ("HIP4",), "ignore": ("sync-mask-32bit",)}, "HIP4010", "", False),
    ("name beats a longer prefix", {}, {"select": ("sync-mask-32bit",), "ignore": ("HIP401",)}, "HIP4010", "", True),
    ("lower-case prefix", {}, {"ignore": ("hip4",)}, "HIP4010", "", False),
    ("explicit flag select beats file ignore", {"ignore": ("HIP4010",)}, {"select": ("HIP4",)}, "HIP4010", "", True),
    ("file ignore beats default select", {"ignore": ("HIP4010",)}, {}, "HIP4010", "", False),
    ("file select, flag ignore", {"select": ("HIP4",)}, {"ignore": ("HIP40",)}, "HIP4010", "", False),
    ("file select still limits", {"select": ("HIP4",)}, {"ignore": ("HIP40",)}, "HIP1100", "", False),
    ("file ignore ALL, flag select one", {"ignore": ("ALL",)}, {"select": ("HIP4010",)}, "HIP4010", "", True),
    ("file ignore ALL keeps others off", {"ignore": ("ALL",)}, {"select": ("HIP4010",)}, "HIP4001", "", False),
    ("per-file ignore by glob", {"per_file_ignores": (("tests/*", ("HIP4",)),)}, {}, "HIP4010", "tests/a.cu", False),
    ("per-file ignore elsewhere", {"per_file_ignores": (("tests/*", ("HIP4",)),)}, {}, "HIP4010", "src/a.cu", True),
    ("per-file basename glob", {"per_file_ignores": (("*.cu", ("sync-mask-32bit",)),)}, {}, "HIP4010", "a/b/c.cu", False),
    ("per-file beats a flag select", {"per_file_ignores": (("tests/",  ("HIP4010",)),)}, {"select": ("HIP4010",)},
     "HIP4010", "tests/x/a.cu", False),
]


@pytest.mark.parametrize(("file_layer", "flags", "rule", "path", "enabled"), [s[1:] for s in SELECTION],
                         ids=[s[0] for s in SELECTION])
def test_select_ignore_precedence(rulebase, file_layer: dict, flags: dict, rule: str, path: str,
                                  enabled: bool) -> None:
    settings = resolve([{}, file_layer, flags])
    assert RuleFilter(rulebase, settings).enabled(rule, path) is enabled


@pytest.mark.parametrize(("settings", "message"), [
    (resolve([{}, {}, {"select": ("HIP4", "FOO")}]), "unknown rule selector 'FOO' (command line)"),
    (resolve([{}, {"ignore": ("HIP99",)}, {}]), "unknown rule selector 'HIP99' (configuration file)"),
    (Settings(per_file_ignores=(("*", ("no-such-rule",)),)), "unknown rule selector 'no-such-rule' (per-file-ignores)"),
])
def test_unknown_selectors_are_errors(rulebase, settings: Settings, message: str) -> None:
    with pytest.raises(SelectorError, match=message.replace("(", r"\(").replace(")", r"\)")):
        RuleFilter(rulebase, settings)


@pytest.mark.parametrize("name", [".rocm-migrate.toml", "pyproject.toml"])
def test_a_configuration_that_links_outside_is_not_read(tmp_path: Path, name: str) -> None:
    """Ours (.rocm-migrate.toml) is an error that names the link; a pyproject.toml that links out is
    no configuration of ours: neither is followed."""
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    write(outside / name, '[tool.rocm-migrate]\nrocm = "6.4"\n[tool.rocm-migrate.workloads]\nSECRET = ["**"]\n'
          if name.startswith("p") else 'rocm = "6.4"\n[workloads]\nSECRET = ["**"]\n')
    tree.mkdir()
    (tree / name).symlink_to(outside / name)
    if name.startswith("."):
        with pytest.raises(SettingsError, match="not read: a symbolic link to outside its folder") as error:
            config.load(tree, {})
        assert "SECRET" not in str(error.value)
    else:
        settings = config.load(tree, {})
        assert settings.rocm == Settings().rocm and "SECRET" not in repr(settings.workloads)


@pytest.mark.parametrize("glob", ["/src/**", "../src/**", "src/../../x"])
def test_a_workload_glob_outside_the_root_is_a_configuration_error(tmp_path: Path, glob: str) -> None:
    from tests.conftest import run_cli

    write(tmp_path / ".rocm-migrate.toml", f'[workloads]\nw = ["src/**", "{glob}"]\n')
    write(tmp_path / "src" / "a.cu", "void g() { cudaFree(0); }\n")
    with pytest.raises(SettingsError, match="must be relative to the project root"):
        config.load(tmp_path, {})
    for command in (("scan", str(tmp_path)), ("validate", "plan", str(tmp_path))):
        result = run_cli(*command)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
