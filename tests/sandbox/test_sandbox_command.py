"""``rfq-desk sandbox``'s new flags (``--faults``, ``--trusted-proxy``) and the private folders it
makes, without starting a server (the command end to end is in ``test_e2e_restart``)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

import tui.sandbox.run
from tui.__main__ import build_parser, main
from tui.sandbox.credentials import write_credentials
from tui.sandbox.faults import FaultSpec
from tui.sandbox.run import SandboxOptions, prepare_files, server_options


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("latency=5ms,lag=1", "'lag=1': unknown fault 'lag'"),
        ("5xx=2", "'5xx=2': '2' is not a probability"),
        ("skew=3", "'skew=3': '3' is not a duration"),
    ],
)
def test_a_bad_fault_spec_is_a_usage_error_naming_the_item(
    spec: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["sandbox", "--faults", spec])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --faults" in err and named in err


def test_trusted_proxies_are_addresses_or_networks(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(
        ["sandbox", "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.1.0.0/16"]
    )
    assert args.trusted_proxies == ["127.0.0.1", "10.1.0.0/16"]
    assert build_parser().parse_args(["sandbox"]).trusted_proxies == []
    for bad in ("proxy.local", "*", "10.0.0.0/33"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["sandbox", "--trusted-proxy", bad])
    assert "not an IP address or network" in capsys.readouterr().err


def test_the_flags_reach_the_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[SandboxOptions] = []
    monkeypatch.setattr(tui.sandbox.run, "run_sandbox", lambda o: seen.append(o) or 0)
    argv = ["sandbox", "--faults", "5xx=0.5,seed=3", "--trusted-proxy", "::1", "--no-actors"]
    assert main(argv) == 0
    (options,) = seen
    assert options.faults == FaultSpec(error_rate=0.5, seed=3)
    assert options.trusted_proxies == ("::1",)
    assert server_options(options)["trusted_proxies"] == ("::1",)
    assert main(["sandbox", "--no-actors"]) == 0
    assert seen[1].faults is None and server_options(seen[1])["trusted_proxies"] == ()


def test_every_folder_the_sandbox_makes_is_private_and_others_are_left_alone(
    tmp_path: Path,
) -> None:
    existing = tmp_path / "home"
    existing.mkdir(mode=0o755)
    existing.chmod(0o755)
    options = SandboxOptions(
        db=existing / "a" / "b" / "c" / "sandbox.db",
        credentials=existing / "x" / "y" / "creds.json",
    )
    db, credentials = prepare_files(options)
    assert db.parent.is_dir() and credentials.parent.is_dir()
    made = [existing / "a", existing / "a" / "b", existing / "a" / "b" / "c"]
    made += [existing / "x", existing / "x" / "y"]
    assert {str(path): mode(path) for path in made} == {str(path): 0o700 for path in made}
    assert mode(existing) == 0o755  # not the sandbox's to change
    (existing / "a").chmod(0o750)
    prepare_files(options)  # a second start changes nothing it finds
    assert mode(existing / "a") == 0o750


def test_the_credentials_folder_is_private_at_every_level(tmp_path: Path) -> None:
    path = tmp_path / "one" / "two" / "three" / "creds.json"
    write_credentials(path, {"companies": []})
    for folder in (tmp_path / "one", tmp_path / "one" / "two", path.parent):
        assert mode(folder) == 0o700, folder
    assert mode(path) == 0o600
