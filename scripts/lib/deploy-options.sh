# shellcheck shell=bash
# shellcheck disable=SC2034 # YES, SVC_ENV_FILE, TIMEOUT and SVC_OPTION_WORDS are set for the calling script
# The command line of the deployment scripts, parsed in one place: --dry-run, --timeout SECONDS and
# -h/--help (every script), -y/--yes and --env-file PATH (the scripts that name them), and the
# script's own options through its svc_deploy_option function. Needs common.sh.

# svc_deploy_options SCRIPT "SHARED" ARGS...: SHARED names which of `yes env-file` SCRIPT takes.
# Sets YES (1 under CI when SCRIPT takes --yes), SVC_DRY_RUN, SVC_ENV_FILE and TIMEOUT, keeping the
# caller's defaults. Any other option goes to svc_deploy_option (given the remaining words), which
# sets SVC_OPTION_WORDS to the words it took when that is 2 and returns 1 for an option it does not
# know: refused with status 2 and the usage, as an option SHARED leaves out. Then svc_start_checks.
svc_deploy_options() {
  local script=$1 shared=" $2 "
  shift 2
  if [[ "$shared" == *" yes "* ]] && [ -n "${CI:-}" ]; then YES=1; fi
  while [ "$#" -gt 0 ]; do
    SVC_OPTION_WORDS=1
    case "$1" in
      -y | --yes) [[ "$shared" == *" yes "* ]] || svc_deploy_refuse "$1"; YES=1 ;;
      --env-file)
        [[ "$shared" == *" env-file "* ]] || svc_deploy_refuse "$1"
        SVC_ENV_FILE=${2:?--env-file needs a path}
        SVC_OPTION_WORDS=2
        ;;
      --dry-run) export SVC_DRY_RUN=1 ;;
      --timeout) TIMEOUT=${2:?--timeout needs seconds}; SVC_OPTION_WORDS=2 ;;
      -h | --help) usage; exit 0 ;;
      *) { declare -F svc_deploy_option >/dev/null && svc_deploy_option "$@"; } || svc_deploy_refuse "$1" ;;
    esac
    shift "$SVC_OPTION_WORDS"
  done
  svc_start_checks "$TIMEOUT" "$script"
}

# An option the script does not take: named, with the usage, status 2.
svc_deploy_refuse() {
  printf 'unknown option: %s\n\n' "$1" >&2
  usage >&2
  exit 2
}
