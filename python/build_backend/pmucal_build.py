"""The package's own PEP 517 build backend: it builds the pure-Python wheel (and an editable
one) with the standard library alone, so that `pip install ./python` in a plain venv needs no
build dependency and therefore no network (a venv has pip and, up to Python 3.11, setuptools,
but not `wheel`, which setuptools' backend needs to build a wheel; pip's default build
isolation would download both). Metadata comes from pyproject.toml's [project] table.
Wheel layout: PEP 427 (the RECORD's hashes, WHEEL file) and core metadata 2.1."""
import base64
import hashlib
import io
import os
import re
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "pmucal"
TAG = "py3-none-any"


def _project():
    """name, version, description, requires-python and license text from [project]."""
    with open(os.path.join(HERE, "pyproject.toml")) as f:
        text = f.read()
    section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S).group(1)
    meta = dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]*)"\s*$', section, re.M))
    lic = re.search(r'^license\s*=\s*\{\s*text\s*=\s*"([^"]*)"', section, re.M)
    meta["license"] = lic.group(1) if lic else ""
    return meta


def _metadata(meta):
    with open(os.path.join(HERE, meta.get("readme", "README.md"))) as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nLicense: %s\n"
            "Requires-Python: %s\nDescription-Content-Type: text/markdown\n\n%s"
            % (meta["name"], meta["version"], meta.get("description", ""), meta["license"],
               meta.get("requires-python", ">=3"), readme))


WHEEL = "Wheel-Version: 1.0\nGenerator: pmucal_build\nRoot-Is-Purelib: true\nTag: %s\n" % TAG


def _dist_info(meta):
    return "%s-%s.dist-info" % (meta["name"], meta["version"])


def _write_wheel(directory, files):
    """files: [(archive name, bytes)]; the RECORD is added last, as PEP 427 wants."""
    meta = _project()
    name = "%s-%s-%s.whl" % (meta["name"], meta["version"], TAG)
    info = _dist_info(meta)
    files = files + [(info + "/METADATA", _metadata(meta).encode()), (info + "/WHEEL", WHEEL.encode())]
    record = io.StringIO()
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            z.writestr(arc, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.write("%s,sha256=%s,%d\n" % (arc, digest, len(data)))
        record.write("%s/RECORD,,\n" % info)
        z.writestr(info + "/RECORD", record.getvalue())
    return name


def _sources():
    out = []
    for f in sorted(os.listdir(os.path.join(HERE, PACKAGE))):
        if f.endswith((".py", ".json")):
            with open(os.path.join(HERE, PACKAGE, f), "rb") as fh:
                out.append(("%s/%s" % (PACKAGE, f), fh.read()))
    return out


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    meta = _project()
    info = os.path.join(metadata_directory, _dist_info(meta))
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(_metadata(meta))
    with open(os.path.join(info, "WHEEL"), "w") as f:
        f.write(WHEEL)
    return _dist_info(meta)


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _sources())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a .pth file that puts this checkout's python/ on sys.path."""
    return _write_wheel(wheel_directory, [("%s.pth" % PACKAGE, (HERE + "\n").encode())])


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    """The source archive: pyproject.toml, README.md, the package and this backend, PKG-INFO."""
    import tarfile
    meta = _project()
    base = "%s-%s" % (meta["name"], meta["version"])
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in ["pyproject.toml", "README.md"] + \
                   [a for a, _ in _sources()] + ["build_backend/pmucal_build.py"]:
            t.add(os.path.join(HERE, rel), arcname="%s/%s" % (base, rel))
        data = _metadata(meta).encode()
        info = tarfile.TarInfo("%s/PKG-INFO" % base)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return name
