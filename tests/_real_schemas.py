"""The schemas the real-replies corpus names (``tests/data/real_replies.jsonl``).

Each is the shape the application in the source thread asked for (tool
arguments, an extraction model, an agent step), cut down to the fields the
reply holds. ``SCHEMAS`` maps the name a case gives in its ``schema`` field to
the type; the loader in ``tests/_real_replies.py`` resolves it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import BaseModel, Field

# ---- tool arguments ------------------------------------------------------------


class WebSearch(BaseModel):
    query: str


class FindText(BaseModel):
    needle: str
    path: str = "."


class Calculator(BaseModel):
    expression: str


class CountWords(BaseModel):
    text: str


class TrafficQuery(BaseModel):
    location: str


class ListDir(BaseModel):
    path: str


class ReadPage(BaseModel):
    file: str
    page: int


class ReadFile(BaseModel):
    filePath: str  # noqa: N815  (the tool's own camelCase name)


class SkillView(BaseModel):
    name: str


class Unit(StrEnum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class WeatherQuery(BaseModel):
    location: str
    unit: Unit = Unit.CELSIUS


class ShellCommand(BaseModel):
    cmd: str


class FilePath(BaseModel):
    path: str


class KnowledgeQuery(BaseModel):
    target: Literal["knowledge", "web"]
    message: str


class CityOnly(BaseModel):
    city: str


class OneWord(BaseModel):
    answer: str


class IntValue(BaseModel):
    value: int


class EchoValue(BaseModel):
    value: str


# ---- extraction and agent models ---------------------------------------------


class Person(BaseModel):
    name: str
    age: int


class StrategyPoint(BaseModel):
    name: dict[str, str]
    information: dict[str, str]


class StrategyReport(BaseModel):
    result: list[StrategyPoint]


class Severity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class Finding(BaseModel):
    rule: str
    severity: Severity
    line: int | None = None


class ReviewReport(BaseModel):
    findings: list[Finding]


class GradeFeedback(BaseModel):
    feedback: str
    marks: int = Field(ge=0, le=10)


class QueryAnswer(BaseModel):
    answer: str


class Verdict(BaseModel):
    final_decision: bool
    final_feedback: str


class Answer(BaseModel):
    observation: str
    recommendation: str


class DoneData(BaseModel):
    operations: dict[str, list[str]]


class AgentDone(BaseModel):
    done: DoneData


class TicketLabel(BaseModel):
    label: Literal["billing", "technical", "account", "other"]
    reason: str


class SceneAnalysis(BaseModel):
    reasoning: str
    actors: list[str]
    details: str


class RefineAdvice(BaseModel):
    discussion: str
    advice: dict[str, str]


class GoalReview(BaseModel):
    reasoning: str
    is_valid: bool
    violations: list[str] = []


class FilingProposal(BaseModel):
    action: Literal["append", "new_note"]
    title: str
    content: str


class Poem(BaseModel):
    poem: str
    sentence_count: int


class SectionSummary(BaseModel):
    section_summary: str


class SameEvent(BaseModel):
    isSameEvent: bool  # noqa: N815  (the application's own camelCase name)
    confidence: float = Field(ge=0, le=1)


class TableColumn(BaseModel):
    col_name: str
    col_type: str
    summary: str


class TableInfo(BaseModel):
    summary: str
    table_title: str
    table_id: str
    columns: list[TableColumn]


class BookScore(BaseModel):
    name: str
    description: str
    score: int = Field(ge=1, le=5)


class BookScores(BaseModel):
    books: list[BookScore]


class Todo(BaseModel):
    content: str
    status: Literal["pending", "in_progress", "completed"]
    priority: Literal["low", "medium", "high"]
    id: str


class TodoList(BaseModel):
    todos: list[Todo]


class Lifecycle(StrEnum):
    UNKNOWN = "unknown"
    TARGET = "target"
    PROSPECT = "prospect"
    CUSTOMER = "customer"
    FORMER_CUSTOMER = "former_customer"


class OrgUpdate(BaseModel):
    lifecycle: Lifecycle


class ExportRequest(BaseModel):
    path: str
    format: Literal["markdown", "json"] = "markdown"


class CityUnit(BaseModel):
    city: str
    unit: Unit = Unit.CELSIUS


class Entity(BaseModel):
    name: str


class ExtractedEntities(BaseModel):
    entities: list[Entity]


class PythonCode(BaseModel):
    code: str


class AgentAction(BaseModel):
    action: str
    action_input: dict[str, Any]


class FormField(BaseModel):
    field_id: str
    text: str
    required: bool = False


class FormExtraction(BaseModel):
    items: list[FormField] | None
    extraction_cost_usd: float | None = None
    validation_issues: list[str] | None = None


class BrowserStep(BaseModel):
    scene: str
    reasoning: str


class SearchQueries(BaseModel):
    queries: list[str] = Field(min_length=1)


class IntentLabel(BaseModel):
    classification: Literal["chitchat", "analysis_request"]


class ResearchTask(BaseModel):
    gap: str
    agent: str
    query: str


class ResearchPlan(BaseModel):
    tasks: list[ResearchTask]


class Question(BaseModel):
    reflection: str
    question: str


class TopTracks(BaseModel):
    limit: int = Field(gt=0)
    genre: str = "all"


class ArticleCard(BaseModel):
    title: str = ""
    summary: str = ""
    tags: list[str] = []


class GuestList(BaseModel):
    guests: list[str]


class Job(BaseModel):
    company: str
    position: str
    duration: str | None = None


class EmployeeProfile(BaseModel):
    name: str
    age: int
    skills: list[str] = Field(min_length=3)
    workhistory: list[Job]


class ReviewVerdict(BaseModel):
    verdict: Literal["approve", "reject", "revise"]
    risks: list[str]
    score: int = Field(ge=0, le=10)


class ArxivQuery(BaseModel):
    author: str = ""
    category: str
    keywords: list[str]
    max_results: int = 10
    extract_text: bool = False


class GameMove(BaseModel):
    move: Literal["rock", "paper", "scissors"]


class NumericAnswer(BaseModel):
    answer: int


SCHEMAS: Final[dict[str, type[Any]]] = {
    model.__name__: model
    for model in (
        WebSearch,
        FindText,
        Calculator,
        CountWords,
        TrafficQuery,
        ListDir,
        ReadPage,
        ReadFile,
        SkillView,
        WeatherQuery,
        ShellCommand,
        FilePath,
        KnowledgeQuery,
        CityOnly,
        OneWord,
        IntValue,
        EchoValue,
        Person,
        StrategyReport,
        ReviewReport,
        GradeFeedback,
        QueryAnswer,
        Verdict,
        Answer,
        AgentDone,
        TicketLabel,
        SceneAnalysis,
        RefineAdvice,
        GoalReview,
        FilingProposal,
        Poem,
        SectionSummary,
        SameEvent,
        TableInfo,
        BookScores,
        TodoList,
        OrgUpdate,
        ExportRequest,
        CityUnit,
        ExtractedEntities,
        PythonCode,
        AgentAction,
        FormExtraction,
        BrowserStep,
        SearchQueries,
        IntentLabel,
        ResearchPlan,
        Question,
        TopTracks,
        ArticleCard,
        GuestList,
        EmployeeProfile,
        ReviewVerdict,
        ArxivQuery,
        GameMove,
        NumericAnswer,
    )
}
