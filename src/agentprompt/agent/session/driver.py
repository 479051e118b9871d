"""The agent session: the turn driver.

One turn: the user's message joins the history; then, for every model call, the system
prompt is regenerated with current facts, the due reminders are injected, the model is
called (streamed where asked), the reminders are removed, the tool calls are run, the
tokens are tracked, and the history is compacted when usage passes the threshold. A turn
never ends with only tool calls: a reply without text gets one follow-up request that asks
for it, and a turn that used all its tool rounds gets one last call that asks for it (its
tool calls are answered, not run). Every call offers the same tools, because a provider
refuses a history holding tool calls without tool definitions, and because the definitions
are part of the cached prefix. Ctrl-C is recorded for the next turn's interruption
reminder, and an error after a partial reply keeps what arrived and retries once with the
continuation reminder.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from agentprompt.agent._mentions import AGENT_TOOL, find_mention, mention_call
from agentprompt.agent._model_call import call_model, reported_tokens
from agentprompt.agent._reminders import (
    ReminderFacts,
    TodoLine,
    build_reminders,
    missing_required_tools,
    remove_reminders,
)
from agentprompt.agent.compaction import (
    Compaction,
    CompactionError,
    compact_history,
    should_compact,
)
from agentprompt.agent.placement import PlacedRequest, place_request
from agentprompt.agent.session._turn import TurnState, answer_calls, unanswered_calls
from agentprompt.agent.session.prompt import PromptInputs, SystemPromptBuilder
from agentprompt.agent.session.values import AgentRole, SessionConfig, SessionEvent, TurnResult
from agentprompt.agent.specialized import AgentCatalog, InvalidAgentDefinition
from agentprompt.composition import MESSAGE_OVERHEAD, message_tokens
from agentprompt.context.usage import ContextUsage, ToolResultStats
from agentprompt.llm.base import ModelClient, ModelReply, ModelRequest
from agentprompt.llm.errors import ModelError
from agentprompt.messages import Message, ToolCall
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.todos import TodoList
from agentprompt.tokens import Tokenizer, shared_counter
from agentprompt.tools.context import DelegationRequest, ToolContext
from agentprompt.tools.policy import ToolPolicy
from agentprompt.tools.registry import ToolRegistry

__all__ = ["AgentSession", "Delegate"]

Delegate = Callable[["AgentSession", DelegationRequest], str]
"""Runs a sub-agent for a session: what ``ToolContext.delegate`` calls, bound to it."""


class AgentSession:
    """A conversation with one agent (the main agent, or a specialised sub-agent).

    The session holds the state that persists between turns (history, todos, token usage,
    the interruption flag, the pending tool context); :mod:`agentprompt.agent.session.persist`
    saves and restores it.
    """

    def __init__(
        self,
        *,
        client: ModelClient,
        root: Path,
        system_prompt: SystemPromptBuilder,
        registry: ToolRegistry,
        config: SessionConfig | None = None,
        prompts: PromptLibrary | None = None,
        todos: TodoList | None = None,
        role: AgentRole | None = None,
        history: Sequence[Message] = (),
        delegate: Delegate | None = None,
        on_event: Callable[[SessionEvent], None] | None = None,
        counter: Tokenizer | None = None,
    ) -> None:
        self.client = client
        """The model."""
        self.root = root
        """The repository the tools work in."""
        self.system_prompt = system_prompt
        """Builds the system prompt before every call."""
        self.registry = registry
        """The tools."""
        self.config = config or SessionConfig()
        """How turns run."""
        self.prompts = prompts or PromptLibrary(root)
        """Where prompt files come from."""
        self.todos = todos if todos is not None else TodoList()
        """The todo list (shared with a plan sub-agent, which proposes into it)."""
        self.role = role
        """None for the main agent; what makes a sub-agent specialised otherwise."""
        self.history: list[Message] = list(history)
        """The conversation after the system prompt: no reminders, no per-turn facts."""
        self.delegate = delegate
        """Runs sub-agents for the explore, plan and agent tools; None disables them."""
        self.on_event = on_event
        """Called with every :class:`SessionEvent`; None to run silently."""
        self.counter = counter or shared_counter(self.model)
        """Counts tokens when the provider reports none."""
        self.interrupted = False
        """The previous turn was interrupted (Ctrl-C): the next one gets the reminder."""
        self.tool_context: str | None = None
        """Context a tool set for the next call's tool-context reminder."""
        self.used_tokens = 0
        """Context tokens in use after the last call."""
        self._compacted: int | None = None
        self._measured = False
        self.tool_results = ToolResultStats()
        """Sizes of the tool results so far (for the remaining tool-call estimate)."""
        self.last_request: PlacedRequest | None = None
        """The last request sent, as placed and counted."""
        self.agent_names: tuple[str, ...] = ()
        """Agents the user may tag with ``@name`` (the main agent delegates to them)."""
        self.agent_catalog: Callable[[], AgentCatalog] | None = None
        """Reads the agent files again before each turn (``agent_names`` follows them, and
        each file that had to be skipped is reported once as a ``warning`` event); None
        keeps ``agent_names`` as set."""
        self.broken_agents: dict[str, InvalidAgentDefinition] = {}
        """The agent files skipped at the last reading, by the agent name their file gives."""
        self._warned: set[str] = set()
        self.stop: threading.Event | None = None
        """When set, the turn ends as if by Ctrl-C before the next call (a sub-agent in a
        batch thread, where Ctrl-C does not arrive)."""

    # facts

    @property
    def model(self) -> str | None:
        """The model this session asks."""
        return (self.role.model if self.role else None) or self.config.model

    @property
    def policy(self) -> ToolPolicy:
        """The tools this agent may use."""
        return self.role.policy if self.role else self.config.policy

    @property
    def depth(self) -> int:
        """0 for the main agent, the nesting depth for a sub-agent."""
        return self.role.depth if self.role else 0

    @property
    def usage(self) -> ContextUsage:
        """How full the context window is, with the tool-result statistics."""
        return ContextUsage(
            used_tokens=self.used_tokens,
            context_size=self.config.context_size,
            tool_results=self.tool_results,
        )

    def prompt_inputs(self) -> PromptInputs:
        """The facts the system prompt is regenerated from for the next call."""
        return PromptInputs(
            root=self.root,
            once=self.config.once,
            usage=self.usage,
            todo_context=self.todos.generate_active_context() if self.role is None else "",
            tool_guidance=self.registry.guidance_section(self.policy),
            profile=self.config.profile,
            role=self.role,
            runs_commands=any(s.runs_commands for s in self.registry.enabled(self.policy)),
        )

    def todo_lines(self) -> tuple[TodoLine, ...]:
        """The todo list as the todo reminder shows it."""
        return tuple(self.todos.reminder_items())

    def _emit(self, event: SessionEvent) -> None:
        if self.on_event is not None:
            self.on_event(replace(event, depth=self.depth))

    # one request

    def build_request(
        self, reminders: Sequence[Message] = (), *, tools: bool = True
    ) -> PlacedRequest:
        """The next call's messages: regenerated system prompt, history, reminders.

        Before the session's first call nothing has been measured, so the request is
        placed once to count it and the usage line states that count (the first call of a
        session has its Context Usage line too)."""
        definitions = self.registry.definitions(self.policy) if tools else ()

        def place(inputs: PromptInputs) -> PlacedRequest:
            return place_request(
                self.config.profile,
                self.system_prompt(inputs),
                self.history,
                reminders,
                counter=self.counter,
                tools=definitions,
            )

        inputs = self.prompt_inputs()
        if self._measured:
            return place(inputs)
        self.used_tokens = place(inputs).total_tokens
        return place(replace(inputs, usage=self.usage))

    def _call(self, placed: PlacedRequest, turn: TurnState) -> ModelReply:
        def on_text(text: str) -> None:
            turn.streamed.append(text)
            self._emit(SessionEvent(kind="text_delta", text=text))

        turn.streamed.clear()
        request = ModelRequest(
            messages=placed.messages,
            tools=placed.composition.tools,
            model=self.model,
            max_tokens=self.config.max_tokens,
        )
        return call_model(
            self.client,
            request,
            stream=self.config.stream and self.role is None,
            on_text=on_text,
        )

    def _track(self, placed: PlacedRequest, reply: ModelReply) -> None:
        self._measured = True
        reported = reported_tokens(reply)
        if reported:
            self.used_tokens = reported
            return
        out = Message(role="assistant", content=reply.text, tool_calls=reply.tool_calls)
        self.used_tokens = placed.total_tokens + message_tokens(out, self.counter)

    # tools

    def _tool_context(self) -> ToolContext:
        delegate = None
        if self.delegate is not None and self.depth < self.config.max_depth:
            run = self.delegate
            delegate = lambda request: run(self, request)  # noqa: E731
        return ToolContext(root=self.root, policy=self.policy, todos=self.todos, delegate=delegate)

    def _run_tools(self, calls: Sequence[ToolCall], turn: TurnState) -> None:
        ctx = self._tool_context()
        for call in calls:
            self._emit(SessionEvent(kind="tool_call", text=call.arguments, name=call.name))
            result = self.registry.run(call, ctx)
            message = Message(
                role="tool",
                content=result.content,
                tool_call_id=call.id,
                name=call.name,
                is_error=result.is_error,
            )
            self.history.append(message)
            self.tool_results = self.tool_results.add(self.counter.count(result.content))
            # The result is in the next request: usage (the prompt's usage line, the
            # thresholds, compaction) must count it now, not one call late. Before the
            # first call (an @agent mention) nothing is measured yet; the first request
            # is counted whole instead.
            if self._measured:
                self.used_tokens += message_tokens(message, self.counter) + MESSAGE_OVERHEAD
            if result.tool_context:
                self.tool_context = result.tool_context
            turn.called.add(call.name)
            turn.tool_calls += 1
            self._emit(
                SessionEvent(
                    kind="tool_result",
                    text=result.content,
                    name=call.name,
                    is_error=result.is_error,
                )
            )

    def _close_open_calls(self) -> None:
        """Answer tool calls left without results (the turn was interrupted), so the history
        stays a valid conversation."""
        note = self.prompts.render("agent/tool_interrupted")
        self.history.extend(answer_calls(unanswered_calls(self.history), note))

    # the turn

    def _reminders(self, turn: TurnState) -> tuple[Message, ...]:
        main = self.role is None
        facts = ReminderFacts(
            interrupted=turn.first_call and turn.interrupted,
            todos=self.todo_lines() if main and turn.first_call else None,
            current_todo=(t.content if (t := self.todos.in_progress()) else None),
            tool_context=self.tool_context,
            missing_required=turn.missing_required,
            continuation=turn.continuation,
            text_response=turn.want_text,
            round_limit=self._round_limit(turn),
        )
        return build_reminders(self.prompts, facts)

    def _round_limit(self, turn: TurnState) -> int | None:
        limit = self.config.max_tool_rounds
        return limit if turn.tool_rounds >= limit else None

    def compact(self, *, keep_recent: int | None = None) -> Compaction | None:
        """Summarise the older history now (auto-compaction, or the user asked for it) and
        recount usage; None when there is nothing to replace. ``keep_recent`` overrides the
        policy's number of latest messages kept. Model errors and a blank summary
        (:class:`CompactionError`) propagate, with the history unchanged."""
        policy = self.config.compaction
        if keep_recent is not None:
            policy = replace(policy, keep_recent=keep_recent)
        done = compact_history(
            self.history, self.client, self.prompts, policy=policy, model=self.model
        )
        if done is None:
            return None
        self.history = list(done.messages)
        self.used_tokens = self._compacted = self.build_request().total_tokens
        self._emit(SessionEvent(kind="compaction", text=done.summary))
        return done

    def clear(self) -> None:
        """Start the conversation afresh: no history, todos, pending reminders or usage."""
        self.history = []
        self.todos = TodoList()
        self.tool_context = None
        self.interrupted = False
        self.used_tokens = 0
        self.tool_results = ToolResultStats()
        self._compacted = None
        self._measured = False

    def _maybe_compact(self, turn: TurnState) -> None:
        policy, size, after = self.config.compaction, self.config.context_size, self._compacted
        if not should_compact(self.used_tokens, size, policy.threshold, after=after):
            return
        try:
            done = self.compact()
        except (CompactionError, ModelError) as exc:
            self._emit(SessionEvent(kind="compaction", text=str(exc), is_error=True))
            return
        if done is not None:
            turn.compacted = True

    def _step(self, turn: TurnState) -> str | None:
        """One model call and what follows it; the final text when the turn is over."""
        if self.role is None:
            self.todos.log_if_changed()  # the todos are logged once per regeneration
        placed = self.build_request(self._reminders(turn))
        self.last_request = placed
        turn.requests += 1
        try:
            reply = self._call(placed, turn)
            turn.continuation = False
        except ModelError as exc:
            partial = exc.partial
            if turn.retried or partial is None or not (partial.text or partial.tool_calls):
                raise
            turn.retried = turn.continuation = True
            self._emit(SessionEvent(kind="retry", text=str(exc)))
            reply = partial
            turn.cut_text = "" if partial.tool_calls else partial.text
        turn.streamed.clear()
        self.history = remove_reminders(self.history)
        self.tool_context = None  # delivered with this call
        turn.first_call = False
        turn.interrupted = False
        self.interrupted = False
        turn.missing_required = ()
        self._track(placed, reply)
        return self._after_reply(turn, reply)

    def _after_reply(self, turn: TurnState, reply: ModelReply) -> str | None:
        if reply.text or reply.tool_calls:
            self.history.append(reply.to_message())
            if reply.text and not self.config.stream:
                self._emit(SessionEvent(kind="text", text=reply.text))
        if reply.tool_calls:
            limit = self._round_limit(turn)
            if limit is not None:  # this call asked for the text response: the turn ends
                note = self.prompts.render("agent/tool_round_limit", limit=limit)
                for answer in answer_calls(reply.tool_calls, note):
                    self.history.append(answer)
                    self._emit(SessionEvent(kind="tool_result", text=note, is_error=True))
                return reply.text
            self._run_tools(reply.tool_calls, turn)
            turn.tool_rounds += 1
            turn.want_text = False
            turn.cut_text = ""
            self._maybe_compact(turn)
            return None
        if turn.continuation:
            return None
        text, turn.cut_text = turn.cut_text + reply.text, ""
        if not text.strip():
            if turn.asked_for_text:
                return ""
            turn.asked_for_text = turn.want_text = True
            return None
        missing = missing_required_tools(self.policy.required_tools, turn.called)
        if missing and turn.required_warnings < self.config.max_required_warnings:
            turn.required_warnings += 1
            turn.missing_required = missing
            turn.want_text = False
            return None
        self._maybe_compact(turn)
        return text

    def run_turn(self, text: str) -> TurnResult:
        """Answer one user message: call the model and run its tools until it gives its
        text response. Ctrl-C ends the turn early (``interrupted``) and is remembered;
        model errors propagate, and when nothing had been answered yet the history is left
        as it was before the turn."""
        if self.role is None:
            self.read_agents()
        before = len(self.history)
        seen_plan = self.todos.present_proposals() if self.role is None else frozenset()
        turn = TurnState(interrupted=self.interrupted)
        self.history.append(Message(role="user", content=text))
        final: str | None = None
        try:
            self._delegate_mention(text, turn)
            while final is None:
                if self.stop is not None and self.stop.is_set():
                    raise KeyboardInterrupt
                final = self._step(turn)
        except KeyboardInterrupt:
            self.history = remove_reminders(self.history)
            self._close_open_calls()
            if turn.streamed:  # the user saw this much of the reply: the model keeps it too
                self.history.append(Message(role="assistant", content="".join(turn.streamed)))
            self.interrupted = True
            return turn.result("", self.usage, interrupted=True)
        except BaseException:
            self.history = remove_reminders(self.history)
            if turn.requests <= 1 and len(self.history) == before + 1:
                del self.history[before:]
            else:
                self._close_open_calls()
            raise
        self.todos.accept_seen_proposals(seen_plan)
        return turn.result(final, self.usage)

    def read_agents(self) -> None:
        """Read the agent files again (with an ``agent_catalog``): the names ``@name`` may
        tag, and a ``warning`` event for each newly skipped file, once per session."""
        if self.agent_catalog is None:
            return
        catalog = self.agent_catalog()
        self.agent_names = catalog.names
        self.broken_agents = {p.path.stem: p for p in catalog.problems if p.path is not None}
        for problem in catalog.problems:
            if str(problem) not in self._warned:
                self._warned.add(str(problem))
                self._emit(SessionEvent(kind="warning", text=f"skipped {problem}"))

    def _delegate_mention(self, text: str, turn: TurnState) -> None:
        offered = {s.name for s in self.registry.enabled(self.policy)}
        if self.role is not None or AGENT_TOOL not in offered:
            return
        broken = find_mention(text, self.broken_agents)
        if broken is not None and broken.agent_name not in self.agent_names:
            # The user asked for this agent by name: say why it cannot run, do not guess.
            raise self.broken_agents[broken.agent_name]
        mention = find_mention(text, self.agent_names)
        if mention is None:
            return
        call = mention_call(mention, f"mention-{len(self.history)}")
        self.history.append(Message(role="assistant", content=None, tool_calls=(call,)))
        self._run_tools((call,), turn)
