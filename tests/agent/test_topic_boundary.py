"""TopicDetector: the compaction skill, lazily loaded, and the boundary reply."""

from __future__ import annotations

import pytest

from agentprompt.agent._topic import TopicDetector, parse_topic_reply
from agentprompt.errors import AgentPromptError
from agentprompt.llm import ScriptedModel
from agentprompt.messages import Message

CONVERSATION = [
    Message(role="user", content="Fix the login bug."),
    Message(role="assistant", content="Fixed in auth.py."),
    Message(role="user", content="Now add a dark theme."),
]


def test_detector_sends_the_skill_and_a_numbered_transcript() -> None:
    model = ScriptedModel(
        [
            '{"boundary_index": 2, "boundary_reason": "new feature", "confidence": 0.9, '
            '"summary": "Login bug fixed in auth.py."}'
        ]
    )
    boundary = TopicDetector(model=model).detect(CONVERSATION)
    assert boundary.boundary_index == 2 and boundary.summary == "Login bug fixed in auth.py."
    system, user = model.requests[0].messages
    assert "boundary_index" in system.text
    assert user.text.startswith("[0] USER:\nFix the login bug.")
    assert "[2] USER:\nNow add a dark theme." in user.text


def test_skill_prompt_is_loaded_on_first_use_only() -> None:
    model = ScriptedModel(['{"boundary_index": null}', '{"boundary_index": null}'])
    detector = TopicDetector(model=model)
    assert detector._prompt is None
    detector.detect(CONVERSATION)
    loaded = detector._prompt
    detector.detect(CONVERSATION)
    assert loaded is not None and detector._prompt is loaded


def test_fenced_reply_with_prose_is_read() -> None:
    reply = 'Sure:\n```json\n{"boundary_index": 1, "confidence": 2, "summary": "s"}\n```'
    boundary = parse_topic_reply(reply, 3)
    assert (boundary.boundary_index, boundary.confidence) == (1, 1.0)


def test_no_boundary_means_no_summary() -> None:
    boundary = parse_topic_reply('{"boundary_index": null, "summary": "ignored"}', 3)
    assert (boundary.boundary_index, boundary.summary) == (None, "")


@pytest.mark.parametrize(
    "reply", ["no json here", '{"boundary_index": 9}', '{"boundary_index": "2"}', "{bad json}"]
)
def test_unusable_reply_is_a_clear_error(reply: str) -> None:
    with pytest.raises(AgentPromptError, match="boundary_index"):
        parse_topic_reply(reply, 3)


def test_empty_conversation_needs_no_model() -> None:
    model = ScriptedModel([])
    assert TopicDetector(model=model).detect([]).boundary_index is None
