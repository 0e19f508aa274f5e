"""Errors of the pmucal reader, and the one version rule of every pmucal schema."""
import re

from ._rules import LIMITS


class TableError(ValueError):
    """Every error of the reader (pmucal.Error is the same class). kind is what libpmucal's
    enum pmucal_err says, for the same input:
    "io" (cannot read, or over 16 MiB), "syntax" (not JSON; the message has line:column), "kind"
    (not this kind of table: another schema name, none, or a top level that is not an object --
    try the other loader), "version" (a malformed version, or another major version), "schema"
    (a field is missing, of the wrong type, out of range or against the table's meaning; the
    message has its JSON path), "no_ratio" (classify, convert: the table cannot give that unit:
    no core:TSC ratio, or no TSC rate), "arg" (a unit or argument that is not one of the
    documented values), "range" (a latency that is NaN, infinite or negative), "no_curve" (a
    TLB table without that curve), "unknown_source" (a data source name or encoding pmucal has
    no source for), "no_bucket" (a known source the table has no bucket for)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


Error = TableError


MAX_FILE = LIMITS["max_file_bytes"]  # bytes: libpmucal's PMUCAL_MAX_FILE


def read_table_file(path):
    """The bytes of the table file @path, as libpmucal's loaders read one (pmucal__load_path):
    TableError "io" when it cannot be read or is larger than MAX_FILE."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE + 1)
    except OSError as e:
        raise TableError("io", "%s: cannot open: %s" % (path, e.strerror or e)) from None
    if len(data) > MAX_FILE:
        raise TableError("io", "%s: larger than %d bytes" % (path, MAX_FILE))
    return data


_VERSION = re.compile(r"(0|[1-9][0-9]{0,8})(?:\.(0|[1-9][0-9]{0,8}))?")


def schema_version(s, prefix):
    """(major, minor) of schema string @s = @prefix + "MAJOR" or "MAJOR.MINOR" (decimal, "0" or
    no leading zero, at most 9 digits each); None when @s does not start with @prefix or the
    version is malformed ("1.", "01", "1.-1", "1x"). A reader accepts every minor of the major
    it knows and ignores members it does not know."""
    if not isinstance(s, str) or not s.startswith(prefix):
        return None
    m = _VERSION.fullmatch(s[len(prefix):])
    if not m:
        return None
    return int(m.group(1)), int(m.group(2) or 0)
