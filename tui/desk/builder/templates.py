"""Named structure templates and the last RFQ sent, kept in one small file (mode 0600).

The file lives in the desk's data folder (`TEMPLATES_FILE`, next to the journal and the
history) and holds JSON: ``{"templates": {name: draft}, "last": draft}``. Every change
rewrites it whole and atomically (`tui.paths.write_private_file`), so a crash leaves the old
file or the new one. A template that cannot be read is skipped and named in `problems`; the
desk never refuses to open over it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tui.desk.builder.draft import StructureDraft, draft_from_json, draft_to_json
from tui.paths import write_private_file

TEMPLATES_FILE = "builder-templates.json"
MAX_NAME = 40


def template_name_problem(name: str) -> str | None:
    """What is wrong with a template name as typed (None: it will do)."""
    if not name.strip():
        return "name the template"
    if len(name.strip()) > MAX_NAME:
        return f"at most {MAX_NAME} characters ({len(name.strip())} typed)"
    return None


class TemplateStore:
    """The builder's templates and the last RFQ sent (see module docs)."""

    def __init__(self, path: Path | None) -> None:
        """``path``: the file (None keeps everything in memory, for tests and demos)."""
        self.path = path
        self.problems: list[str] = []
        self._templates: dict[str, StructureDraft] = {}
        self._last: StructureDraft | None = None
        if path is not None and path.exists():
            self._load(path)

    @classmethod
    def in_folder(cls, folder: Path) -> TemplateStore:
        """The store of the desk whose data folder is ``folder``."""
        return cls(folder / TEMPLATES_FILE)

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            self.problems.append(f"{path}: cannot be read ({error}); templates start empty")
            return
        if not isinstance(data, dict):
            self.problems.append(f"{path}: not a templates file; templates start empty")
            return
        templates = data.get("templates")
        for name, entry in (templates if isinstance(templates, dict) else {}).items():
            try:
                self._templates[str(name)] = draft_from_json(entry)
            except (ValueError, TypeError, AttributeError) as error:
                self.problems.append(f"{path}: template {name!r} skipped ({error})")
        last = data.get("last")
        if isinstance(last, dict):
            try:
                self._last = draft_from_json(last)
            except (ValueError, TypeError, AttributeError):
                self.problems.append(f"{path}: the last RFQ cannot be read")

    def names(self) -> list[str]:
        """The templates' names, in alphabetical order (case-blind)."""
        return sorted(self._templates, key=str.casefold)

    def get(self, name: str) -> StructureDraft | None:
        """The template of that name."""
        return self._templates.get(name)

    def save(self, name: str, draft: StructureDraft) -> str:
        """Keep ``draft`` as ``name`` (replacing one of the same name); the name as kept.
        ValueError says what is wrong with the name."""
        problem = template_name_problem(name)
        if problem is not None:
            raise ValueError(problem)
        kept = name.strip()
        self._templates[kept] = draft
        self._write()
        return kept

    def delete(self, name: str) -> None:
        """Forget a template."""
        if self._templates.pop(name, None) is not None:
            self._write()

    @property
    def last(self) -> StructureDraft | None:
        """The last RFQ the venue took from this desk, as it was built."""
        return self._last

    def remember_last(self, draft: StructureDraft) -> None:
        """The venue took this RFQ: it is the one "repeat the last RFQ" builds again."""
        self._last = draft
        self._write()

    def _write(self) -> None:
        if self.path is None:
            return
        document: dict[str, Any] = {
            "templates": {name: draft_to_json(d) for name, d in self._templates.items()},
            "last": None if self._last is None else draft_to_json(self._last),
        }
        write_private_file(self.path, json.dumps(document, indent=1, sort_keys=True) + "\n")
