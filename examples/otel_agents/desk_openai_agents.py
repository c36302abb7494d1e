"""An order desk built on the OpenAI Agents SDK: one tool, the orders it is given."""

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
from openai import AsyncOpenAI
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

OpenAIAgentsInstrumentor().instrument()  # the SDK's traces as OpenTelemetry spans


def desk(orders: dict[str, str], base_url: str) -> Agent:
    """The desk for one conversation over ``orders`` (order id -> status)."""

    @function_tool
    def lookup_order(order_id: str) -> str:
        """The status of one order."""
        return orders.get(order_id.strip().upper(), "查无此订单")

    client = AsyncOpenAI(base_url=base_url, api_key="-")
    model = OpenAIChatCompletionsModel(model="fake-model", openai_client=client)
    return Agent(
        name="desk",
        instructions="You answer customers about their orders.",
        tools=[lookup_order],
        model=model,
    )


async def ask(question: str, orders: dict[str, str], base_url: str) -> str:
    """The desk's answer to one question."""
    result = await Runner.run(desk(orders, base_url), question)
    return str(result.final_output)
