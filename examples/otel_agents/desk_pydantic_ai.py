"""An order desk built on pydantic-ai: one tool, the orders it is given."""

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

Agent.instrument_all(True)  # pydantic-ai's own OpenTelemetry spans (GenAI conventions)


def desk(orders: dict[str, str], base_url: str) -> Agent:
    """The desk for one conversation over ``orders`` (order id -> status)."""
    model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=base_url, api_key="-"))
    agent = Agent(model, name="desk", instructions="You answer customers about their orders.")

    @agent.tool_plain
    def lookup_order(order_id: str) -> str:
        """The status of one order."""
        return orders.get(order_id.strip().upper(), "查无此订单")

    return agent


async def ask(question: str, orders: dict[str, str], base_url: str) -> str:
    """The desk's answer to one question."""
    result = await desk(orders, base_url).run(question)
    return result.output
