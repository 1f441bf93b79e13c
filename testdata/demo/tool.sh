#!/bin/sh
# A Narratoria tool for toonkit exec's examples: the spec's minimum viable
# tool (section 9), with an asset (orders.json, beside this script) and,
# when toonkit sends one (--input), the stdin object shown in a ui event.
# With --sparkle it also writes an event of a type the spec does not know.
dir=$(dirname "$0")
request=$(cat)
echo '{"version":"0","type":"log","level":"info","message":"Starting"}'
if [ -n "$request" ]; then
  echo "{\"version\":\"0\",\"type\":\"ui_event\",\"event\":\"show_request\",\"payload\":$request}"
fi
echo "{\"version\":\"0\",\"type\":\"asset\",\"assetId\":\"orders\",\"kind\":\"document\",\"mediaType\":\"application/json\",\"path\":\"$dir/orders.json\"}"
if [ "$1" = --sparkle ]; then
  echo '{"version":"0","type":"sparkle","glitter":true}'
fi
echo '{"version":"0","type":"state_patch","patch":{"flags":{"torchLit":true}}}'
echo '{"version":"0","type":"done","ok":true,"summary":"Torch lit."}'
