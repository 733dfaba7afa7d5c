# shellcheck shell=bash
# Minimal JSON output for the preflight report (no jq needed).

# A JSON string literal for $1.
svc_json_str() {
  local s=$1 out="" c i code
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case "$c" in
      '"') out+='\"' ;;
      \\) out+="\\\\" ;;
      $'\n') out+='\n' ;;
      $'\r') out+='\r' ;;
      $'\t') out+='\t' ;;
      *)
        printf -v code '%d' "'$c"
        if [ "$code" -ge 0 ] && [ "$code" -lt 32 ]; then printf -v c '\\u%04x' "$code"; fi
        out+=$c
        ;;
    esac
  done
  printf '"%s"' "$out"
}

# A JSON array of strings from the arguments.
svc_json_str_array() {
  local sep="" a
  printf '['
  for a in "$@"; do printf '%s%s' "$sep" "$(svc_json_str "$a")"; sep=,; done
  printf ']'
}

# The preflight report: every check that ran with its stable id, status (PASS|WARN|FAIL), message
# and fix_hint (null when it passed), the skipped ids, the summary and the repairs.
pf_json_report() {
  local i sep="" hint skipped_ids=()
  printf '{"host":%s,"checks":[' "$(svc_json_str "$(hostname)")"
  for i in "${!RESULT_NAMES[@]}"; do
    if [ "${RESULT_STATUS[$i]}" = skip ]; then
      skipped_ids+=("${RESULT_NAMES[$i]}")
      continue
    fi
    hint=null
    [ -z "${RESULT_HINT[$i]}" ] || hint=$(svc_json_str "${RESULT_HINT[$i]}")
    printf '%s{"id":%s,"status":%s,"message":%s,"fix_hint":%s}' "$sep" "$(svc_json_str "${RESULT_NAMES[$i]}")" \
      "$(svc_json_str "$(printf '%s' "${RESULT_STATUS[$i]}" | tr '[:lower:]' '[:upper:]')")" "$(svc_json_str "${RESULT_MSG[$i]}")" "$hint"
    sep=,
  done
  printf '],"skipped":%s' "$(svc_json_str_array ${skipped_ids[@]+"${skipped_ids[@]}"})"
  printf ',"summary":{"pass":%d,"warn":%d,"fail":%d,"skip":%d,"ok":%s}' "$PASS" "$WARN" "$FAIL" "$SKIPPED" \
    "$([ "$FAIL" -eq 0 ] && echo true || echo false)"
  if [ "$FIX" = 1 ]; then
    printf ',"fix":{"dry_run":%s,"repaired":%s,"not_repaired":%s}' "$(svc_is_dry_run && echo true || echo false)" \
      "$(svc_json_str_array ${FIXED[@]+"${FIXED[@]}"})" "$(svc_json_str_array ${NOT_FIXED[@]+"${NOT_FIXED[@]}"})"
  fi
  printf '}\n'
}
