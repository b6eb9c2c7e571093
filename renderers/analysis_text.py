"""The whole list of an analysis's decisions as plain text, for a document sent in private.

:func:`analysis_text` is pure: every word comes from ``labels`` (English by default, the
same keys as :data:`renderers.analysis_card.CARD_LABELS` plus :data:`TEXT_LABELS`).
"""

from __future__ import annotations

from collections.abc import Mapping

from core.analysis import Decision, MatchAnalysis

from .analysis_card import CARD_LABELS, where_line

#: The document's own words (on top of the card's).
TEXT_LABELS: dict[str, str] = {
    "line": "{where}: {played} (best {best}) {loss}",
    "forced_note": "Forced moves are not listed: they are not decisions.",
    "mat_summary": "{name}: {rating}, error rate {rate} millipoints, PR {pr}, luck {luck}",
}


class _Say:
    def __init__(self, labels: Mapping[str, str] | None) -> None:
        self.words = {**CARD_LABELS, **TEXT_LABELS, **(labels or {})}

    def __call__(self, key: str, **params: object) -> str:
        return str(self.words.get(key, key)).format(**params)


def _line(say: _Say, analysis: MatchAnalysis, d: Decision) -> str:
    """One decision: where, the play made, the best one, the loss and its verdict."""
    where = where_line(say, analysis, d)
    played = d.played if d.kind == "play" else say(d.played)
    best = d.best if d.kind == "play" else say(d.best)
    loss = say("loss", loss=f"{d.loss:.3f}") if d.loss > 0 else "0"
    if d.skill.value:
        loss += f" ({say(d.skill.value)})"
    return say("line", where=where, played=played, best=best, loss=loss)


def mat_comments(analysis: MatchAnalysis, labels: Mapping[str, str] | None = None) -> list[str]:
    """The analysis as comment lines for the ``.mat`` export (``core.export.export_games``'s
    ``comments``): the evaluator, each player's figures, then every error (a doubtful
    decision or worse), in the order played."""
    say = _Say(labels)
    out = [say("evaluator", name=say(analysis.evaluator))]
    for s in analysis.players:
        out.append(
            say(
                "mat_summary",
                name=s.name,
                rating=say(s.rating),
                rate=f"{s.error_per_decision:.1f}",
                pr=f"{s.pr:.1f}",
                luck=f"{s.luck:+.2f}",
            )
        )
    out += [_line(say, analysis, d) for d in analysis.decisions if d.skill.value]
    return out


def analysis_text(analysis: MatchAnalysis, labels: Mapping[str, str] | None = None) -> str:
    """Every decision with its loss, after both players' figures, one per line."""
    say = _Say(labels)
    out = [say("title"), say("evaluator", name=say(analysis.evaluator)), ""]
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
    out += [_line(say, analysis, d) for d in analysis.decisions] or [say("no_decisions")]
    out += ["", say("forced_note")]
    return "\n".join(out) + "\n"
