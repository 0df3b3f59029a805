"""The schemas the real-replies corpus names (``tests/data/real_replies.jsonl``).

Each is the shape the application in the source thread asked for (tool
arguments, an extraction model, an agent step), cut down to the fields the
reply holds. ``SCHEMAS`` maps the name a case gives in its ``schema`` field to
the type; the loader in ``tests/_real_replies.py`` resolves it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

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


# ---- issue 22: tool arguments and agent models of the second batch ----------


class ApplyPatch(BaseModel):
    input: str


class WriteLog(BaseModel):
    message: str


class WriteFile(BaseModel):
    file_path: str
    content: str


class EvaluationFeedback(BaseModel):
    feedback: str
    score: Literal["pass", "needs_improvement", "fail"]


class TransferAgent(BaseModel):
    agent_name: str


class ReadRange(BaseModel):
    filePath: str  # noqa: N815  (the tool's own camelCase names)
    startLineNumberBaseZero: int  # noqa: N815
    endLineNumberBaseZero: int  # noqa: N815


class GrepArgs(BaseModel):
    include: str
    output_mode: str
    path: str
    pattern: str


class ReadFilePath(BaseModel):
    filepath: str


class PlanSummary(BaseModel):
    summary: str
    steps: list[str]


class TicketTriage(BaseModel):
    category: Literal["bug", "feature", "question"]
    priority: int = Field(ge=1, le=4)
    components: list[str]


class ScrollText(BaseModel):
    prompt: str


class ScrollPrompt(BaseModel):
    output: ScrollText
    reasoning_content: str


class SupportTopics(BaseModel):
    Billing: bool
    Shipping: bool
    Returns: bool


class ReasonScore(BaseModel):
    score: int
    reason: str


class MemorySearch(BaseModel):
    query: str
    limit: int = 10


class QueryKeywords(BaseModel):
    high_level_keywords: list[str]
    low_level_keywords: list[str]


class Likelihood(StrEnum):
    YES = "yes"
    NO = "no"
    UNCERTAIN = "uncertain"


class RiskAssessment(BaseModel):
    risk_present: Likelihood
    reason_for_answer: str


class WorkDir(BaseModel):
    work_dir_name: str


class BashCommand(BaseModel):
    command: str


class ListFolders(BaseModel):
    account: str


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Fact(BaseModel):
    what: str
    scope: Literal["world", "experience", "opinion"]


class FactList(BaseModel):
    facts: list[Fact]


class SendEmail(BaseModel):
    fromEmail: str  # noqa: N815  (the tool's own camelCase names)
    toEmail: str  # noqa: N815
    subject: str
    content: str


class FlightSearch(BaseModel):
    originCityCode: str  # noqa: N815  (the plugin's own camelCase names)
    destinationCityCode: str  # noqa: N815
    departureDate: str  # noqa: N815
    returnDate: str | None = None  # noqa: N815
    locale: str = "en"
    oneWayOrRoundTrip: Literal["OneWay", "RoundTrip"]  # noqa: N815


class PersonName(BaseModel):
    name: str = Field(max_length=100)


class PriceRange(BaseModel):
    symbol: str
    start_date: str
    end_date: str


class MultiplyArgs(BaseModel):
    first_int: int
    second_int: int


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
        ApplyPatch,
        WriteLog,
        WriteFile,
        EvaluationFeedback,
        TransferAgent,
        ReadRange,
        GrepArgs,
        ReadFilePath,
        PlanSummary,
        TicketTriage,
        ScrollPrompt,
        SupportTopics,
        ReasonScore,
        MemorySearch,
        QueryKeywords,
        RiskAssessment,
        WorkDir,
        BashCommand,
        ListFolders,
        NoArgs,
        FactList,
        SendEmail,
        FlightSearch,
        PersonName,
        PriceRange,
        MultiplyArgs,
    )
}
