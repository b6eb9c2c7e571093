"""The whole list of an analysis's decisions as plain text, for a document sent in private.

:func:`analysis_text` is pure: every word comes from ``labels`` (English by default, the
same keys as :data:`renderers.analysis_card.CARD_LABELS` plus :data:`TEXT_LABELS`).
"""

from __future__ import annotations

from collections.abc import Mapping

from core.analysis import MatchAnalysis

from .analysis_card import CARD_LABELS

#: The document's own words (on top of the card's).
TEXT_LABELS: dict[str, str] = {
    "line": "{where}: {played} (best {best}) {loss}",
    "forced_note": "Forced moves are not listed: they are not decisions.",
}


def analysis_text(analysis: MatchAnalysis, labels: Mapping[str, str] | None = None) -> str:
    """Every decision with its loss, after both players' figures, one per line."""
    words = {**CARD_LABELS, **TEXT_LABELS, **(labels or {})}

    def say(key: str, **params: object) -> str:
        return str(words.get(key, key)).format(**params)

    out = [say("title"), say("evaluator", name=analysis.evaluator), ""]
    for s in analysis.players:
        out.append(f"{s.name}: {say(s.rating)}")
        for key, value in (
            ("error_rate", f"{s.error_per_decision:.1f}"),
            ("pr", f"{s.pr:.1f}"),
            ("decisions", str(s.decisions)),
            ("doubtful", str(s.doubtful)),
            ("bad", str(s.bad)),
            ("very_bad", str(s.very_bad)),
            ("luck", f"{s.luck:+.2f}"),
            ("luck_adjusted", f"{s.luck_adjusted:+.2f}"),
        ):
            out.append(f"  {say(key)}: {value}")
        out.append("")
    for d in analysis.decisions:
        where = say("where", game=d.game, move=d.move, name=analysis.names[d.player])
        if d.dice:
            where += f" · {d.dice[0]}-{d.dice[1]}"
        played = d.played if d.kind == "play" else say(d.played)
        best = d.best if d.kind == "play" else say(d.best)
        loss = say("loss", loss=f"{d.loss:.3f}") if d.loss > 0 else "0"
        if d.skill.value:
            loss += f" ({say(d.skill.value)})"
        out.append(say("line", where=where, played=played, best=best, loss=loss))
    out += ["", say("forced_note")]
    return "\n".join(out) + "\n"
