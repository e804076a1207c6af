"""A2A 1.0 peer on the Python SDK (a2a-sdk 1.x, Starlette + uvicorn): echo and a streamed report.

Prints `PEERS {"python": "<base url>"}` once it listens on 127.0.0.1 (a free port), like
launchPeers.ts, and exits when stdin closes.

Setup: python3 -m venv .venv-a2a && .venv-a2a/bin/pip install "a2a-sdk[http-server]" uvicorn
"""

import asyncio
import json
import socket
import sys

import uvicorn
from a2a.helpers.proto_helpers import new_data_part, new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution.agent_executor import AgentExecutor
from a2a.server.agent_execution.context import RequestContext
from a2a.server.events.event_queue_v2 import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks.inmemory_task_store import InMemoryTaskStore
from a2a.server.tasks.task_updater import TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, TaskState
from starlette.applications import Starlette


class SampleExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        if not text.startswith('/report'):
            await event_queue.enqueue_event(new_text_message(text, context_id=context.context_id))
            return
        topic = text.removeprefix('/report').strip() or 'everything'
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        for step in ('collecting', 'writing'):
            await updater.update_status(TaskState.TASK_STATE_WORKING, new_text_message(step, context_id=task.context_id, task_id=task.id))
            await asyncio.sleep(0.02)
        await updater.add_artifact([new_text_part(f'# Report on {topic}')], name='report.md')
        await updater.add_artifact([new_data_part({'topic': topic, 'total': 42})], name='report.json')
        await updater.complete(new_text_message('Report ready.', context_id=task.context_id, task_id=task.id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


async def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    base = f'http://127.0.0.1:{sock.getsockname()[1]}'
    card = AgentCard(
        name='Python Sample Agent',
        description='A2A 1.0 test agent on the Python SDK: echo and a streamed report.',
        version='1.0.0',
        supported_interfaces=[AgentInterface(url=f'{base}/a2a/jsonrpc', protocol_binding='JSONRPC', protocol_version='1.0')],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain', 'application/json'],
        skills=[
            AgentSkill(id='echo', name='Echo', description='Replies with the text it was sent.', tags=['test']),
            AgentSkill(id='report', name='Report', description='Streams steps, then a text and a data artifact.', tags=['test']),
        ],
    )
    handler = DefaultRequestHandler(agent_executor=SampleExecutor(), task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, '/a2a/jsonrpc')])
    server = uvicorn.Server(uvicorn.Config(app, log_level='warning'))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.02)
    print(f'PEERS {json.dumps({"python": base})}', flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    server.should_exit = True
    await serving


if __name__ == '__main__':
    asyncio.run(main())
