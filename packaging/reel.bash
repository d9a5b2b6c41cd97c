# bash completion for reel: its commands, each command's options (read from `reel COMMAND --help`, so they
# never disagree with it), preset names (`reel presets`), device specs after --video and --audio (`reel
# devices`), and the words some options take; file names elsewhere.
_reel() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} reel=${COMP_WORDS[0]}
    COMPREPLY=()
    if (( COMP_CWORD == 1 )); then
        COMPREPLY=( $(compgen -W "$("$reel" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')" -- "$cur") )
        return
    fi
    case $prev in
        --preset|--tier)
            COMPREPLY=( $(compgen -W "$("$reel" presets 2>/dev/null | sed -n 's/^\([A-Za-z0-9][A-Za-z0-9_-]*\) .*/\1/p')" -- "$cur") )
            compopt -o filenames 2>/dev/null
            COMPREPLY+=( $(compgen -f -X '!*.json' -- "$cur") )
            return ;;
        --video|--audio)
            COMPREPLY=( $(compgen -W "none $("$reel" devices 2>/dev/null | grep -o '\(v4l2\|alsa\|pulse\|lavfi\|x11grab\):[^ ]*' | sort -u)" -- "$cur") )
            return ;;
        --trigger) COMPREPLY=( $(compgen -W "motion sound" -- "$cur") ); return ;;
        --alarm) COMPREPLY=( $(compgen -W "silence clipping black frozen" -- "$cur") ); return ;;
        --layout)
            COMPREPLY=( $(compgen -W "pip side-by-side grid only:1 only:2" -- "$cur") )
            compopt -o filenames 2>/dev/null
            COMPREPLY+=( $(compgen -f -X '!*.json' -- "$cur") )
            return ;;
        --filter) COMPREPLY=( $(compgen -W "deinterlace stabilize denoise" -- "$cur") ); return ;;
        --audio-tracks) COMPREPLY=( $(compgen -W "mix separate" -- "$cur") ); return ;;
        --orientation) COMPREPLY=( $(compgen -W "landscape-right landscape-left portrait portrait-upside-down" -- "$cur") ); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=( $(compgen -W "$("$reel" "${COMP_WORDS[1]}" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur") )
        return
    fi
    compopt -o default 2>/dev/null
}
complete -F _reel reel
