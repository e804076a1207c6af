"""A Clawdapus-style runner written with the official OpenAI Python client, pointed at Tooldeck's
model mediation: argv = base URL, credential, model, prompt. Prints one JSON line with the
answer of a plain request and of a streamed one."""
import json
import sys

from openai import OpenAI

base_url, credential, model, prompt = sys.argv[1:5]
client = OpenAI(base_url=base_url, api_key=credential, max_retries=0)
answer = client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}])
streamed = ""
for chunk in client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}], stream=True):
    if chunk.choices and chunk.choices[0].delta.content:
        streamed += chunk.choices[0].delta.content
try:
    client.chat.completions.create(model="nowhere/model", messages=[{"role": "user", "content": prompt}])
    refused = None
except Exception as error:  # the SDK's APIStatusError for the 400
    refused = {"status": getattr(error, "status_code", None), "message": str(error)}
print(json.dumps({"content": answer.choices[0].message.content, "tool_calls": answer.choices[0].message.tool_calls, "streamed": streamed, "refused": refused}))
