"""TLS settings of ``setup``'s dict and the environment: the data path follows the master RPC's
TLS unless ``tls_data_path`` is false."""

import pytest

from mooncake_osgi.connect import TlsSettings

FILES = {"tls_cert": "c.pem", "tls_key": "k.pem", "tls_ca": "ca.crt"}


def test_the_data_path_uses_the_same_tls_by_default():
    tls = TlsSettings.of(FILES)
    assert tls.for_data_path() is tls


@pytest.mark.parametrize("value", [False, "false", "0", "no"])
def test_tls_data_path_false_leaves_the_data_path_plain(value):
    assert TlsSettings.of(dict(FILES, tls_data_path=value)).for_data_path() is None


def test_the_environment_says_it_too(monkeypatch):
    monkeypatch.setenv("MOONCAKE_TLS_DATA_PATH", "false")
    assert TlsSettings.of(FILES).for_data_path() is None


def test_a_bad_flag_or_a_partial_setting_is_refused_saying_what():
    with pytest.raises(ValueError, match="tls_data_path is true or false"):
        TlsSettings.of(dict(FILES, tls_data_path="maybe"))
    with pytest.raises(ValueError, match="tls_cert, tls_key and tls_ca together"):
        TlsSettings.of({"tls_cert": "c.pem"})


def test_no_settings_no_tls(monkeypatch):
    for name in ("MOONCAKE_TLS_CERT", "MOONCAKE_TLS_KEY", "MOONCAKE_TLS_CA"):
        monkeypatch.delenv(name, raising=False)
    assert TlsSettings.of({}) is None
