"""`RoleSet`: the desk's four roles (taker, maker, pools, safety), each built at first use.

The roles import the signed client, the write models and their forms; the first frame needs
none of that, so `DeskApp` takes them from here as properties that build the role (and import
its module) the first time a key, a pane or a test asks for it.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from tui.desk.roles.maker import MakerRole
    from tui.desk.roles.pools import PoolsRole
    from tui.desk.roles.runner import ActionRunner, DeskHost
    from tui.desk.roles.safety import SafetyRole
    from tui.desk.roles.taker import TakerRole


class RoleSet:
    """Mixed into `DeskApp`: its roles, built when first used (see module docs)."""

    export_dir: Path

    @property
    def _host(self) -> DeskHost:
        return cast("DeskHost", self)

    @cached_property
    def runner(self) -> ActionRunner:
        """Runs every role's actions in workers (`tui.desk.roles.runner`)."""
        from tui.desk.roles.runner import ActionRunner

        return ActionRunner(self._host)

    @cached_property
    def taker(self) -> TakerRole:
        """RFQs sent, quotes accepted."""
        from tui.desk.roles.taker import TakerRole

        return TakerRole(self._host, self.runner)

    @cached_property
    def maker(self) -> MakerRole:
        """Quotes sent and pulled, last looks."""
        from tui.desk.roles.maker import MakerRole

        return MakerRole(self._host, self.runner)

    @cached_property
    def pools(self) -> PoolsRole:
        """Deposits, withdrawals, new pools, the wallet."""
        from tui.desk.roles.pools import PoolsRole

        return PoolsRole(self._host, self.runner)

    @cached_property
    def safety(self) -> SafetyRole:
        """The kill switch and the CSV export."""
        from tui.desk.roles.safety import SafetyRole

        return SafetyRole(self._host, self.runner, self.export_dir)
