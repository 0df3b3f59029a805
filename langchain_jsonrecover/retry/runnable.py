"""The Runnable both retry chains are: one generator of steps, sync or async.

Internal to ``retry`` (:class:`~langchain_jsonrecover.retry.JsonRetryChain`)
and ``structured`` (``StructuredOutputChain``); not a public API. A subclass
writes :meth:`LoopRunnable.start_steps` once; ``invoke`` runs it making each call,
``ainvoke`` awaiting each, both inside a chain run so that model calls are
its child runs; ``stream`` and ``astream`` stream each model call and yield
the items its ``feed`` gives, then the output. The input is whatever a chat
model takes.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AnyMessage
from langchain_core.prompt_values import ChatPromptValueConcrete, StringPromptValue
from langchain_core.runnables import RunnableConfig, RunnableSerializable

from langchain_jsonrecover._core.sync_or_async import (
    Finished,
    arun_steps,
    astream_steps,
    run_steps,
    stream_steps,
)
from langchain_jsonrecover.parsers.streaming import NOTHING, is_plain_json, same_json

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from langchain_core.callbacks import (
        AsyncCallbackManagerForChainRun,
        CallbackManagerForChainRun,
    )

    from langchain_jsonrecover._core.sync_or_async import Steps

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ChainRun:
    """The chain run a loop runs in; model calls are its child runs."""

    manager: CallbackManagerForChainRun | AsyncCallbackManagerForChainRun
    """The run's callback manager."""
    config: RunnableConfig
    """The runnable config."""
    kwargs: dict[str, Any]
    """Passed to each model call (``stop=`` …)."""


class LoopRunnable(RunnableSerializable[LanguageModelInput, T]):
    """A chain run whose body is :meth:`steps`, sync or async."""

    @property
    def InputType(self) -> Any:  # noqa: N802 - LangChain's name
        """What a chat model takes."""
        return str | StringPromptValue | ChatPromptValueConcrete | list[AnyMessage]

    def invoke(
        self,
        input: LanguageModelInput,  # noqa: A002 - LangChain's name
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> T:
        """Ask until a reply parses.

        Args:
            input: What a chat model takes.
            config: The runnable config.
            **kwargs: Passed to each model call (``stop=`` …).

        Returns:
            The parsed value; with ``include_raw``, the ``RetryResult``.

        Raises:
            RetryExhaustedError: No reply parsed (not with ``include_raw``).
            ModelRefusalError: The model refused.
        """
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(
        self,
        input: LanguageModelInput,  # noqa: A002 - LangChain's name
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> T:
        """Async twin of :meth:`invoke`: the same arguments, output and errors."""
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)

    def _invoke(
        self,
        input_: LanguageModelInput,
        run_manager: CallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> T:
        return run_steps(
            self.start_steps(input_, ChainRun(run_manager, config, kwargs))
        )

    async def _ainvoke(
        self,
        input_: LanguageModelInput,
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> T:
        run = ChainRun(run_manager, config, kwargs)
        return await arun_steps(self.start_steps(input_, run))

    def stream(
        self,
        input: LanguageModelInput,  # noqa: A002 - LangChain's name
        config: RunnableConfig | None = None,
        **kwargs: Any | None,
    ) -> Iterator[T]:
        """Ask until a reply parses, streaming each attempt as it comes.

        Args:
            input: What a chat model takes.
            config: The runnable config.
            **kwargs: Passed to each model call (``stop=`` …).

        Yields:
            Each attempt's partial values, then the output ``invoke`` returns
            (left out when the last partial value is already it, as plain
            JSON data).

        Raises:
            RetryExhaustedError: No reply parsed (not with ``include_raw``).
            ModelRefusalError: The model refused.
        """
        yield from self._transform_stream_with_config(
            iter([input]), self._stream_loop, config, **kwargs
        )

    async def astream(
        self,
        input: LanguageModelInput,  # noqa: A002 - LangChain's name
        config: RunnableConfig | None = None,
        **kwargs: Any | None,
    ) -> AsyncIterator[T]:
        """Async twin of :meth:`stream`: the same arguments, items and errors."""
        async for item in self._atransform_stream_with_config(
            _one(input), self._astream_loop, config, **kwargs
        ):
            yield item

    def _stream_loop(
        self,
        inputs: Iterator[LanguageModelInput],
        run_manager: CallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> Iterator[T]:
        run = ChainRun(run_manager, config, kwargs)
        last: Any = NOTHING
        for item in stream_steps(self.start_steps(next(inputs), run)):
            if isinstance(item, Finished):
                if not _already(last, item.value):
                    yield item.value
                return
            last = item
            yield item

    async def _astream_loop(
        self,
        inputs: AsyncIterator[LanguageModelInput],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        **kwargs: Any,
    ) -> AsyncIterator[T]:
        run = ChainRun(run_manager, config, kwargs)
        last: Any = NOTHING
        input_ = await anext(inputs)
        async for item in astream_steps(self.start_steps(input_, run)):
            if isinstance(item, Finished):
                if not _already(last, item.value):
                    yield item.value
                return
            last = item
            yield item

    @abstractmethod
    def start_steps(self, input_: LanguageModelInput, run: ChainRun) -> Steps[T]:
        """The run over ``input_``: yields each call, returns the output.

        Args:
            input_: What a chat model takes.
            run: The chain run it runs in.
        """


def _already(last: Any, value: Any) -> bool:
    """Whether the last item yielded is already the output (plain JSON alike)."""
    return last is not NOTHING and is_plain_json(value) and same_json(last, value)


async def _one(value: Any) -> AsyncIterator[Any]:
    yield value
