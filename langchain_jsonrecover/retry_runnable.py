"""The Runnable both retry chains are: one generator of steps, sync or async.

Internal to ``retry`` (:class:`~langchain_jsonrecover.retry.JsonRetryChain`)
and ``structured`` (``StructuredOutputChain``); not a public API. A subclass
writes :meth:`LoopRunnable.start_steps` once; ``invoke`` runs it making each call,
``ainvoke`` awaiting each, both inside a chain run so that model calls are
its child runs. The input is whatever a chat model takes.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AnyMessage
from langchain_core.prompt_values import ChatPromptValueConcrete, StringPromptValue
from langchain_core.runnables import RunnableConfig, RunnableSerializable

from langchain_jsonrecover._core.sync_or_async import arun_steps, run_steps

if TYPE_CHECKING:
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

    @abstractmethod
    def start_steps(self, input_: LanguageModelInput, run: ChainRun) -> Steps[T]:
        """The run over ``input_``: yields each call, returns the output.

        Args:
            input_: What a chat model takes.
            run: The chain run it runs in.
        """
